/** Styles of the launcher (in the loader): system colours as fallbacks for every property. */
export const LAUNCHER_CSS = `
:host{all:initial;--parley-primary:#1c5fd4;--parley-on-primary:#ffffff;--parley-background:#ffffff;--parley-text:#1a1b1e;--parley-muted:#495057;--parley-radius:12px;--parley-font:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;--parley-z:2147483000}
.root{position:fixed;bottom:20px;right:20px;z-index:var(--parley-z);font-family:var(--parley-font);font-size:16px;line-height:1.4;color:var(--parley-text)}
.root.left{right:auto;left:20px}
.launcher{display:flex;align-items:center;justify-content:center;width:56px;height:56px;border-radius:50%;border:2px solid transparent;background:var(--parley-primary);color:var(--parley-on-primary);cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25);padding:0}
.launcher svg{width:28px;height:28px;fill:currentColor}
.launcher:focus-visible{outline:3px solid var(--parley-text);outline-offset:3px}
.launcher[aria-expanded="true"]{display:none}
@media (prefers-reduced-motion:no-preference){.launcher{transition:transform .15s ease}.launcher:hover{transform:scale(1.06)}}
@media (forced-colors:active){.launcher{border-color:ButtonText}}
`;
