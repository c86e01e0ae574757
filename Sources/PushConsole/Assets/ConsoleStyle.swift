extension ConsoleAssets {
    /// The console's style sheet.
    static let style = #"""
:root { --bg: #f6f7f9; --panel: #fff; --ink: #1d2330; --muted: #6b7385; --line: #e2e5eb; --ok: #1a7f43; --bad: #c0392b;
        --warn: #b7791f; --accent: #2f5bea; --row: 28px; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); }
header { display: flex; align-items: center; gap: 24px; padding: 10px 20px; background: #141a26; color: #fff; }
header h1 { margin: 0; font-size: 18px; font-weight: 600; } header h1 span { color: #8fa8ff; font-weight: 400; }
nav button { background: none; border: 0; color: #c5cbe0; padding: 6px 12px; font: inherit; cursor: pointer; border-radius: 6px; }
nav button.active { background: #2a3246; color: #fff; }
.live { margin-left: auto; font-size: 12px; } .live::before { content: "●"; margin-right: 6px; }
.live.on::before { color: #3ccf7a; } .live.off::before { color: #e0a030; }
main { padding: 14px 20px; }
.tab { display: none; } .tab.active { display: block; }
.toolbar { display: flex; gap: 10px; align-items: center; margin-bottom: 10px; }
.toolbar input[type=search] { flex: 0 1 420px; }
input, select, textarea, button { font: inherit; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); }
button { cursor: pointer; } button[type=submit], #m-refresh { background: var(--accent); color: #fff; border-color: var(--accent); }
.muted { color: var(--muted); }
.split { display: grid; grid-template-columns: minmax(0, 1.25fr) minmax(0, 1fr); gap: 14px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; overflow: auto; }
.log { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
#detail, #device-detail { max-height: calc(100vh - 120px); }
#log-view { position: relative; height: calc(100vh - 170px); min-height: 300px; overflow-y: auto; }
#log-rows { position: absolute; left: 0; right: 0; top: 0; }
.row { display: grid; grid-template-columns: 96px 52px minmax(0, 1.2fr) 92px 84px minmax(0, 1.1fr) minmax(0, 1.4fr);
       gap: 8px; align-items: center; height: var(--row); padding: 0 10px; border-bottom: 1px solid var(--line);
       white-space: nowrap; font-size: 13px; cursor: pointer; }
.row span { overflow: hidden; text-overflow: ellipsis; }
.row.head { background: #eef0f4; font-weight: 600; cursor: default; color: var(--muted); font-size: 12px; }
.row:hover { background: #f2f5ff; } .row.selected { background: #e3eaff; }
.row.fresh { animation: fresh 1.2s ease-out; } @keyframes fresh { from { background: #fff6c8; } to { background: transparent; } }
.ok { color: var(--ok); } .bad { color: var(--bad); } .warn { color: var(--warn); }
.mono, code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; }
h2 { font-size: 15px; margin: 16px 0 6px; } .panel > h2:first-child { margin-top: 0; }
table.kv { border-collapse: collapse; width: 100%; } table.kv td { padding: 2px 8px 2px 0; vertical-align: top; border-bottom: 1px solid #f0f1f4; }
table.kv td:first-child { color: var(--muted); white-space: nowrap; width: 1%; }
.json { background: #fbfbfd; border: 1px solid var(--line); border-radius: 6px; padding: 6px 0; overflow-x: auto; }
.json .line { white-space: pre; padding: 0 10px; } .json .line.flag { background: #fdecea; }
.json .line.flag.warning { background: #fff5dc; }
.finding-note { white-space: normal; margin: 2px 10px 4px 24px; padding: 4px 8px; border-left: 3px solid var(--bad); background: #fff; font-size: 12.5px; }
.finding-note.warning { border-color: var(--warn); } .finding-note .fix { display: block; color: var(--muted); }
.findings { list-style: none; padding: 0; margin: 8px 0; }
.findings li { padding: 6px 8px; border-left: 3px solid var(--bad); background: #fdf3f2; margin-bottom: 6px; border-radius: 0 6px 6px 0; }
.findings li.warning { border-color: var(--warn); background: #fffaf0; } .findings li.clean { border-color: var(--ok); background: #f0faf4; }
.findings .fix { color: var(--muted); display: block; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 8px 12px; }
label { display: flex; flex-direction: column; gap: 3px; font-size: 12.5px; color: var(--muted); }
label.wide { margin-top: 10px; } textarea { width: 100%; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 12px 0 0; } legend { color: var(--muted); font-size: 12px; }
.lock { background: linear-gradient(160deg, #35436b, #1b2236); border-radius: 18px; padding: 18px 14px; max-width: 380px; }
.notif { background: rgba(245, 246, 250, .92); border-radius: 14px; padding: 10px 12px; display: grid; grid-template-columns: 1fr auto; gap: 2px 10px; }
.notif .app { font-size: 11.5px; text-transform: uppercase; letter-spacing: .04em; color: #5b6275; grid-column: 1 / -1; display: flex; justify-content: space-between; }
.notif .title { font-weight: 600; } .notif .subtitle { font-weight: 500; } .notif .body { color: #2b3140; }
.notif .title, .notif .subtitle, .notif .body { grid-column: 1; }
.notif img { width: 56px; height: 56px; object-fit: cover; border-radius: 8px; grid-row: 2 / span 3; grid-column: 2; }
.badge { display: inline-block; background: #e5484d; color: #fff; border-radius: 10px; padding: 0 7px; font-size: 11px; margin-left: 6px; }
.tap { margin-top: 8px; }
.host { margin: 8px 0; } .host .real { color: #b4261a; }
.shade { background: #202124; border-radius: 18px; padding: 14px 10px; max-width: 380px; margin-bottom: 10px; }
.notif.android { background: #f1f3f4; border-radius: 16px; grid-template-columns: 1fr; }
.notif.android img.big { width: 100%; height: auto; max-height: 180px; border-radius: 10px; grid-row: auto; grid-column: 1; margin-top: 6px; }
.chart text { font-size: 11px; fill: #4a5163; } .chart .budget { fill: #eef1f7; } .chart .grid { stroke: #d9dde6; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin-bottom: 14px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 120px; }
.card b { display: block; font-size: 20px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 14px; }
[hidden] { display: none !important; }
label.inline { flex-direction: row; align-items: center; gap: 6px; }
table.list { border-collapse: collapse; width: 100%; font-size: 13px; }
table.list th { text-align: left; color: var(--muted); font-weight: 600; font-size: 12px; border-bottom: 1px solid var(--line); padding: 4px 8px 4px 0; }
table.list td { border-bottom: 1px solid #f0f1f4; padding: 3px 8px 3px 0; white-space: nowrap; }
.device-item { padding: 6px 8px; border-bottom: 1px solid var(--line); cursor: pointer; } .device-item:hover { background: #f2f5ff; }
"""#
}
