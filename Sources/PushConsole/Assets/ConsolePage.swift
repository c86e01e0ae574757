/// The console's one HTML page, embedded in the binary (nothing is downloaded at run time).
enum ConsoleAssets {
    static let page = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pushlab console</title>
<link rel="stylesheet" href="/console/app.css">
</head>
<body>
<header>
  <h1>pushlab <span>console</span></h1>
  <nav id="tabs">
    <button data-tab="log" class="active">Push log</button>
    <button data-tab="devices">Devices</button>
    <button data-tab="send">Send</button>
    <button data-tab="metrics">Metrics</button>
  </nav>
  <span id="live" class="live off" title="live stream">connecting…</span>
</header>
<main>
  <section id="tab-log" class="tab active">
    <div class="toolbar">
      <input id="search" type="search" placeholder="Search apns-id, FCM name, token, delivery id, reason" autocomplete="off">
      <select id="f-platform" aria-label="platform"><option value="">all platforms</option><option value="apns">APNs</option><option value="fcm">FCM</option></select>
      <select id="f-outcome" aria-label="outcome"><option value="">all outcomes</option><option value="accepted">accepted</option><option value="rejected">rejected</option></select>
      <span id="count" class="muted"></span>
    </div>
    <div class="split">
      <div class="log">
        <div class="row head"><span>time</span><span>platform</span><span>app</span><span>target</span><span>type</span><span>status</span><span>id</span></div>
        <div id="log-view"><div id="log-spacer"></div><div id="log-rows"></div></div>
      </div>
      <aside id="detail" class="panel"><p class="muted">Select a push to see its headers, payload, answer and what the device did.</p></aside>
    </div>
  </section>
  <section id="tab-devices" class="tab">
    <div id="relay-devices" hidden>
      <div class="toolbar"><label class="inline">App <select id="rd-app"></select></label><button id="rd-refresh" type="button">Refresh</button><span id="rd-note" class="muted"></span></div>
      <div class="split">
        <div class="panel"><h2>Tokens delivered to <span class="muted">newest result first</span></h2><table id="rd-tokens" class="list"></table></div>
        <div class="panel"><h2>Invalid tokens <span class="muted">the invalid-token feed</span></h2><table id="rd-invalid" class="list"></table></div>
      </div>
    </div>
    <div id="lab-devices" class="split">
      <div id="device-list" class="panel"></div>
      <aside id="device-detail" class="panel"><p class="muted">Select a notification.</p></aside>
    </div>
  </section>
  <section id="tab-send" class="tab">
    <div id="relay-send" class="split" hidden>
      <form id="relay-form" class="panel" autocomplete="off">
        <div class="grid">
          <label>App <select id="r-app"></select></label>
          <label>Targets are <select id="r-kind"><option value="apns">APNs device tokens</option><option value="fcm">FCM registration tokens</option><option value="topic">FCM topics</option></select></label>
        </div>
        <label class="wide">Targets, one a line <textarea id="r-targets" spellcheck="false" rows="4" placeholder="64 hex digits (APNs), a registration token (FCM) or a topic name"></textarea></label>
        <label class="wide">Payload JSON (the native request without its targets: "apns" and/or "fcm") <textarea id="r-body" spellcheck="false" rows="12"></textarea></label>
        <p id="r-host" class="host"></p>
        <button id="r-send" type="submit">Queue push</button>
        <div id="r-answer"></div>
      </form>
      <aside class="panel"><h2>Request <span class="muted">as POST /v1/apps/{app}/pushes gets it</span></h2><div id="r-request"></div>
        <p class="muted">The console posts through the relay's native API: validated with the catalog, durably queued, retried and recorded like any API push. Errors name their field by JSON pointer.</p></aside>
    </div>
    <div id="lab-send" class="split">
      <form id="send-form" class="panel" autocomplete="off">
        <div class="grid">
          <label>Send to <select id="s-target"><option value="lab">this lab's gateway</option></select></label>
          <label>Platform <select id="s-platform"><option value="apns">APNs</option><option value="fcm">FCM</option></select></label>
          <label>Device token <input id="s-token" placeholder="64 hex digits (APNs) or registration token (FCM)"></label>
          <label>Topic <input id="s-topic" value="io.pushlab.demo"></label>
          <label>Push type <select id="s-type"><option value="">from payload</option><option>alert</option><option>background</option><option>liveactivity</option><option>voip</option><option>complication</option><option>fileprovider</option><option>mdm</option><option>location</option><option>pushtotalk</option><option>widgets</option><option>controls</option></select></label>
          <label>Priority <select id="s-priority"><option value="">default</option><option>10</option><option>5</option><option>1</option></select></label>
        </div>
        <fieldset>
          <legend>Fields (they write the JSON below)</legend>
          <div class="grid">
            <label>Title <input id="s-title" data-field></label>
            <label>Subtitle <input id="s-subtitle" data-field></label>
            <label>Body <input id="s-body" data-field></label>
            <label>Badge <input id="s-badge" data-field inputmode="numeric"></label>
            <label>Image (https) <input id="s-image" data-field></label>
            <label>Link <input id="s-link" data-field></label>
            <label>Delivery id <input id="s-delivery" data-field></label>
          </div>
        </fieldset>
        <label class="wide">Raw JSON <textarea id="s-payload" spellcheck="false" rows="10"></textarea></label>
        <div id="s-summary" class="muted"></div>
        <ul id="findings" class="findings"></ul>
        <p id="s-host" class="host"></p>
        <button id="s-send" type="submit">Send</button>
        <div id="send-answer"></div>
      </form>
      <aside class="panel"><h2>Preview</h2><div id="send-preview"></div><p class="muted">The lock screen as the payload asks for it; the virtual iPhone's extension decides what it really shows (see the push in the log once sent).</p></aside>
    </div>
  </section>
  <section id="tab-metrics" class="tab">
    <div class="toolbar"><button id="m-refresh" type="button">Refresh</button><span id="m-note" class="muted"></span></div>
    <div id="metrics"></div>
    <div id="relay-metrics" hidden></div>
  </section>
</main>
<script src="/console/app.js"></script>
</body>
</html>
"""#
}
