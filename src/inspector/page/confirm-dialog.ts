// Asks before a write, in a native modal <dialog>: focus moves into it, Escape cancels, Cancel is the default button.

import { h } from "./dom.ts";

/** Resolves true only when the person pressed the confirm button. */
export function confirmAction(title: string, message: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = "confirm-title";
    const messageId = "confirm-message";
    const dialog = h(
      "dialog",
      { "aria-labelledby": titleId, "aria-describedby": messageId },
      h("h2", { id: titleId }, title),
      h("p", { id: messageId }, message),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "secondary", autofocus: true, onclick: () => dialog.close("cancel") }, "Cancel"),
        h("button", { type: "button", class: "danger", onclick: () => dialog.close("confirm") }, confirmLabel),
      ),
    );
    const opener = document.activeElement;
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(dialog.returnValue === "confirm");
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}
