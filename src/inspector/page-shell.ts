// The one HTML document of the inspector: header, navigation, a live status line and the <main> the page scripts fill.

/**
 * Static markup: nothing from the store is ever written into it (the scripts set text through the
 * DOM, never as HTML), and the CSP allows only this origin's script and stylesheet. Links are
 * relative, so every request carries the access token in its path.
 */
export const PAGE_SHELL: string = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>moomem ui</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="styles.css">
<script type="module" src="page/main.js"></script>
</head>
<body>
<a class="skip-link" href="#main" id="skip-link">Skip to content</a>
<header class="site-header">
<p class="brand"><span aria-hidden="true">🐮</span> moomem ui</p>
<nav aria-label="Sections">
<ul>
<li><a href="#/" data-section="users">Users</a></li>
<li><a href="#/recall" data-section="recall">Recall playground</a></li>
<li><a href="#/stats" data-section="stats">Store</a></li>
</ul>
</nav>
<p class="mode" id="mode"></p>
</header>
<div class="status" id="status" role="status" aria-live="polite"></div>
<main id="main" tabindex="-1">
<p>Loading…</p>
<noscript><p>The moomem inspector needs JavaScript.</p></noscript>
</main>
</body>
</html>
`;
