// What `npm pack` ships: the license, the README, the built code and types, and nothing that points at
// files it does not ship (source maps into src/, which is not in the package).

import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, it, expect, beforeAll } from "vitest";
import { ROOT, ensureBuilt } from "./helpers/built-package.ts";

interface PackedFile {
  path: string;
  size: number;
}

let files: PackedFile[] = [];
let tarballBytes = 0;

beforeAll(async () => {
  await ensureBuilt();
  const json = await new Promise<string>((resolve, reject) => {
    execFile("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`npm pack --dry-run failed: ${stderr}`));
      else resolve(stdout);
    });
  });
  const [pack] = JSON.parse(json) as [{ files: PackedFile[]; size: number }];
  files = pack.files;
  tarballBytes = pack.size;
});

describe("the npm package", () => {
  it("ships the MIT license that package.json names", () => {
    const paths = files.map((f) => f.path);
    expect(paths).toContain("LICENSE");
    expect(paths).toContain("README.md");
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string };
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
  });

  it("ships no source maps, and no file refers to one", () => {
    const maps = files.filter((f) => f.path.endsWith(".map")).map((f) => f.path);
    expect(maps).toEqual([]);
    for (const file of files.filter((f) => /\.(js|d\.ts)$/.test(f.path))) {
      expect(readFileSync(join(ROOT, file.path), "utf8"), file.path).not.toContain("sourceMappingURL");
    }
  });

  it("ships every file its modules import, and no tests", () => {
    const shipped = new Set(files.map((f) => f.path));
    expect([...shipped].filter((p) => /\.test\./.test(p))).toEqual([]);
    for (const file of files.filter((f) => f.path.endsWith(".js"))) {
      // Comments may show imports of a user's files (a doc example): only code counts.
      const code = readFileSync(join(ROOT, file.path), "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "");
      for (const match of code.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        const target = posix.normalize(posix.join(posix.dirname(file.path), match[1]!));
        expect(shipped.has(target), `${file.path} imports ${match[1]}`).toBe(true);
      }
    }
    console.log(`npm pack: ${files.length} files, ${(tarballBytes / 1024).toFixed(1)} KiB packed`);
  });
});
