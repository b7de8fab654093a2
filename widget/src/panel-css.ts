/** Styles of the chat panel (in the panel chunk). */
export const PANEL_CSS = `
.panel{position:fixed;bottom:20px;right:20px;width:380px;max-width:calc(100vw - 40px);height:min(600px,calc(100vh - 40px));display:flex;flex-direction:column;background:var(--parley-background);color:var(--parley-text);border-radius:var(--parley-radius);box-shadow:0 10px 40px rgba(0,0,0,.3);overflow:hidden;font-family:var(--parley-font);font-size:16px;line-height:1.4;border:1px solid rgba(0,0,0,.12)}
.root.left .panel{right:auto;left:20px}
[hidden]{display:none!important}
header{display:flex;align-items:center;gap:8px;padding:10px 12px;background:var(--parley-primary);color:var(--parley-on-primary)}
header h2{flex:1;margin:0;font-size:17px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
header img{width:32px;height:32px;border-radius:50%;object-fit:cover}
header button{background:transparent;color:inherit;border:2px solid transparent;border-radius:8px;min-width:40px;min-height:40px;cursor:pointer;font:inherit;display:flex;align-items:center;justify-content:center;padding:0 6px}
header button svg{width:20px;height:20px;fill:currentColor}
header button:hover{border-color:currentColor}
button:focus-visible,textarea:focus-visible,input:focus-visible{outline:3px solid var(--parley-text);outline-offset:2px}
.body:focus-visible{outline:3px solid var(--parley-primary);outline-offset:-3px}
header button:focus-visible{outline-color:var(--parley-on-primary);outline-offset:-4px}
.body{flex:1;overflow-y:auto;overscroll-behavior:contain;padding:12px;display:flex;flex-direction:column;gap:8px}
.log{display:flex;flex-direction:column;gap:8px}
.msg{max-width:85%;padding:8px 12px;border-radius:14px;white-space:pre-wrap;overflow-wrap:anywhere;background:#eef0f3;color:#1a1b1e;align-self:flex-start}
.msg.visitor{align-self:flex-end;background:var(--parley-primary);color:var(--parley-on-primary)}
.msg.person{background:#e6f4ea;color:#14301c}
.msg .who{display:block;font-size:13px;font-weight:600;margin-bottom:2px}
.msg .face{width:20px;height:20px;border-radius:50%;object-fit:cover;vertical-align:middle;margin-right:6px}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.blocks{display:flex;flex-wrap:wrap;gap:6px;margin:0;padding:0;list-style:none}
.blocks.list{flex-direction:column}
.blocks button{font:inherit;font-size:15px;min-height:40px;padding:6px 12px;border-radius:20px;border:2px solid var(--parley-primary);background:var(--parley-background);color:var(--parley-text);cursor:pointer;text-align:left}
.blocks.list button{border-radius:10px;width:100%}
.blocks button small{display:block;font-size:13px;color:var(--parley-muted)}
.blocks button:hover{background:#eef0f3}
.blocks button:disabled{cursor:default;opacity:.6}
.notice{align-self:center;font-size:14px;color:var(--parley-muted);background:#f1f3f5;border-radius:10px;padding:6px 10px;text-align:center}
.notice.error{color:#8a1c1c;background:#fdecec}
.draft::after{content:"▍"}
form{display:flex;gap:8px;padding:10px;border-top:1px solid rgba(0,0,0,.12);align-items:flex-end}
textarea{flex:1;resize:none;font:inherit;padding:8px 10px;border-radius:10px;border:1px solid #6b7280;min-height:40px;max-height:120px;background:var(--parley-background);color:var(--parley-text)}
form button,.consent button,.confirm button{font:inherit;min-height:40px;padding:0 14px;border-radius:10px;border:2px solid var(--parley-primary);background:var(--parley-primary);color:var(--parley-on-primary);cursor:pointer}
form button:disabled{opacity:.6;cursor:default}
.consent,.confirm{display:flex;flex-direction:column;gap:10px;padding:12px;font-size:15px}
.confirm{border-top:1px solid rgba(0,0,0,.12)}
.confirm .row{display:flex;gap:8px}
.confirm button.secondary{background:var(--parley-background);color:var(--parley-text)}
@media (max-width:639.98px){.panel{inset:auto 0 auto 0;top:var(--parley-viewport-top,0px);width:100%;max-width:none;height:var(--parley-viewport-height,100%);border-radius:0;border:0}.root.left .panel{left:0}}
.root.full .panel{inset:0;width:100%;max-width:none;height:100%;border-radius:0;border:0}
.root.full .close{display:none}
@media (prefers-reduced-motion:no-preference){.panel{animation:parley-in .18s ease-out}@keyframes parley-in{from{opacity:0;transform:translateY(12px)}to{opacity:1;transform:none}}}
.typing{font-style:italic;opacity:.8}
.extra form{display:flex;flex-direction:column;gap:6px;margin:8px 0}
.extra .row{display:flex;flex-wrap:wrap;gap:4px}
.extra input,.extra textarea{font:inherit;padding:6px;border:1px solid #8888;border-radius:6px}
@media (forced-colors:active){.msg,.blocks button,.notice{border:1px solid CanvasText}}
`;
