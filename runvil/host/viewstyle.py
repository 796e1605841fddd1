"""The run viewer's stylesheet, inlined into every page (no external file,
font or image: the page must open anywhere, offline)."""

CSS = """
:root { --ink:#1d2330; --muted:#6b7385; --line:#d9dde6; --paper:#fbfbfd;
  --system:#efe8fb; --user:#e6f0ff; --assistant:#e8f6ec; --tool:#fff4df; --bad:#b3261e; --good:#1f7a3a; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 24px; font: 15px/1.45 system-ui, sans-serif;
  color: var(--ink); background: var(--paper); }
header h1 { margin: 0 0 4px; font-size: 26px; }
.figures, .when, .muted, .exec, .id { color: var(--muted); }
.when, .exec, .id { font-size: 13px; }
.status { font-size: 14px; padding: 2px 8px; border-radius: 10px; vertical-align: middle; }
.status.ok { background: #dff3e4; color: var(--good); }
.status.failed { background: #fbe1df; color: var(--bad); }
.status.running { background: #eee; color: var(--muted); }
section.entry { margin: 22px 0; padding: 4px 18px 12px; border-left: 4px solid #8aa4d6; background: #fff;
  border-radius: 6px; box-shadow: 0 1px 2px rgba(0,0,0,.06); }
section.entry h2 { font-size: 19px; margin: 12px 0 8px; }
details.round, details.change { margin: 10px 0; border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
summary { cursor: default; font-weight: 600; }
.messages { margin: 8px 0; }
.msg { margin: 6px 0; padding: 6px 10px; border-radius: 6px; border: 1px solid var(--line); }
.msg.system { background: var(--system); } .msg.user { background: var(--user); }
.msg.assistant { background: var(--assistant); } .msg.tool { background: var(--tool); }
.msg:not(.new) { opacity: .72; }
.msg.new { border-left: 4px solid #5b7bd5; }
.role { font-size: 12px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
pre { margin: 4px 0; white-space: pre-wrap; word-break: break-word; font: 13px/1.4 ui-monospace, monospace; }
pre.empty { color: var(--muted); }
.call { margin: 4px 0; padding: 4px 8px; border: 1px dashed #9aa5bd; border-radius: 4px; background: #fff; }
.fn { font-family: ui-monospace, monospace; font-weight: 700; }
.answer { border-top: 1px solid var(--line); margin-top: 8px; padding-top: 6px; }
.msg.reply { border-left: 4px solid var(--good); }
.meta { font-size: 13px; color: var(--muted); margin-top: 4px; }
.toolrun { margin: 6px 0; padding: 6px 10px; background: var(--tool); border-radius: 6px; }
.result { margin-top: 4px; }
.failed, .result.failed, .end.failed { color: var(--bad); }
.precheck { font-size: 13px; margin: 4px 0 8px; }
.bar { height: 10px; background: #eef0f5; border: 1px solid var(--line); border-radius: 5px; overflow: hidden;
  display: flex; margin-top: 3px; }
.bar i { display: block; height: 100%; }
.bar .used { background: #5b7bd5; } .bar .reserve { background: #f0b44c; }
.refusal { margin: 8px 0; padding: 8px 10px; background: #fbe1df; border-radius: 6px; }
.beforeafter { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.beforeafter h3 { font-size: 14px; margin: 6px 0; }
.notice, .print, .tool, .retry, .loopend { margin: 6px 0; padding: 6px 10px; border-radius: 6px; background: #f2f3f7; }
.label { font-size: 12px; font-weight: 700; text-transform: uppercase; color: var(--muted); }
.tools { font-size: 13px; color: var(--muted); }
footer.outcome { margin-top: 26px; padding: 10px 18px; border-radius: 6px; background: #fff; }
footer.outcome.ok { border-left: 4px solid var(--good); }
footer.outcome.failed { border-left: 4px solid var(--bad); }
footer h2 { margin: 6px 0; font-size: 18px; }
details.h1body { margin: 8px 0; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; }
.h1lua pre { background: #f2f3f7; padding: 4px 8px; border-radius: 4px; }
.taskio { margin: 6px 0; padding: 6px 10px; border-radius: 6px; background: #eef3fb; }
"""
