#!/usr/bin/env python3
"""Drives pushlab's web console in real headless Chromium (Debian's chromium + chromedriver,
Selenium from .venv; nothing downloads a browser).

It starts `pushlab serve --console` on free ports, an HTTPS image server (the dev certificate),
optionally fills the log with --prefill pushes through the real gateway, then in the browser:
the first page's load time; a push sent with the CLI appears in the log without a reload; its
detail shows the extension timeline and the lock-screen preview (with the attached image); an
invalid payload typed in the send form shows the finding at its JSON pointer; a push sent from
the form is accepted and recorded by the gateway (/admin/pushes). Then, on `pushlab demo
--console`, the virtual Android phone's notification in the device view: its shade preview with
the picture, channel, delivered metric and tap destination. It saves screenshots.

Prints one JSON line of measurements; exit 0 when every check passed, 1 (with the failed check
on stderr) otherwise. Used by Tests/PushConsoleTests/ConsoleBrowserTests.swift and
benchmarks/console.sh.
"""
import argparse
import http.server
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class Failure(Exception):
    pass


def stop(serve):
    """Stops `pushlab serve` the graceful way (SIGINT), killing it if it has not exited in 20 s."""
    serve.send_signal(signal.SIGINT)
    try:
        serve.wait(timeout=20)
    except subprocess.TimeoutExpired:
        serve.kill()


def report(result, failure=None, name="console browser test"):
    """Prints the one JSON line of measurements (and the failed check on stderr); the exit status."""
    result["passed"] = failure is None
    print(json.dumps(result))
    if failure is not None:
        print(f"{name} FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


def check(condition, what):
    if not condition:
        raise Failure(what)


def start_image_server(root):
    """HTTPS server for payloads/assets on a free loopback port, with the dev certificate."""
    assets = os.path.join(root, "payloads", "assets")

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=assets, **kw)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(root, "certs/server.pem"), os.path.join(root, "certs/server.key"))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_serve(root, pushlab, *flags):
    proc = subprocess.Popen([pushlab, "serve", "--console", "--port", "0", "--apns-port", "0", "--h2c-port", "0", "--quiet", *flags],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    urls = {}
    deadline = time.time() + 30
    while time.time() < deadline and "console" not in urls:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("APNs: https://"):
            urls["apns"] = line.split()[1]
        elif line.startswith("console: "):
            urls["console"] = line.split()[1]
        elif "(h2c, http/1.1)" in line:
            urls["h2c"] = line.split()[0]
    if "console" not in urls:
        proc.kill()
        raise Failure("pushlab serve --console did not print its console URL within 30 s")
    return proc, urls


def send_cli(root, pushlab, apns_url, token, *flags):
    out = subprocess.run([pushlab, "send", "apns", "--url", apns_url, "--ca-file", "certs/ca.pem",
                          "--key", "certs/AuthKey_PLDEVKEY01.p8", "--team-id", "PLDEVTEAM1", "--topic", "io.pushlab.demo",
                          "--token", token, *flags], cwd=root, capture_output=True, text=True, timeout=60)
    check(out.returncode == 0, f"pushlab send apns failed ({out.returncode}): {out.stdout} {out.stderr}")
    match = re.search(r"apns-id ([0-9a-f-]{36})", out.stdout)
    check(match, f"no apns-id in the CLI's output: {out.stdout}")
    return match.group(1)


def prefill(root, pushlab, apns_url, count):
    """`count` pushes through the real gateway with the CLI's bulk sender."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for i in range(count):
            f.write("%064x\n" % (i + 1))
        tokens = f.name
    started = time.time()
    out = subprocess.run([pushlab, "send", "apns", "--url", apns_url, "--ca-file", "certs/ca.pem",
                          "--key", "certs/AuthKey_PLDEVKEY01.p8", "--team-id", "PLDEVTEAM1", "--topic", "io.pushlab.demo",
                          "--tokens", tokens, "--title", "Bulk", "--body", "prefill", "--out", os.devnull],
                         cwd=root, capture_output=True, text=True, timeout=600)
    os.unlink(tokens)
    check(out.returncode == 0, f"bulk prefill failed ({out.returncode}): {out.stderr[-500:]}")
    return time.time() - started


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


def android_view(driver, root, pushlab, screenshot):
    """`pushlab demo --console`: the Android phone's notification in the device view."""
    demo = subprocess.Popen([pushlab, "demo", "--console"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        console = None
        deadline = time.time() + 120
        while time.time() < deadline and console is None:
            line = demo.stdout.readline()
            if not line:
                break
            if line.startswith("console: "):
                console = line.split()[1]
        check(console, "pushlab demo --console did not print its console URL")
        driver.get(console)
        driver.find_element(By.CSS_SELECTOR, "#tabs button[data-tab=devices]").click()
        item = wait(driver, 30, lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".device-item[data-device=pixel]")],
                    "the Android phone 'pixel' in the device list")[0]
        check("pushlab demo on Android" in item.text, f"the Android notification's title is not listed: {item.text!r}")
        item.click()
        panel = wait(driver, 30, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-detail .shade"), "the Android shade preview")[0]
        check("pushlab demo on Android" in panel.text and "demo-android-1" in panel.text, f"the shade lacks the title and body: {panel.text!r}")
        detail = driver.find_element(By.ID, "device-detail")
        channel = detail.find_element(By.ID, "android-channel").text
        check(channel, "no notification channel shown")
        metric = detail.find_element(By.ID, "android-metric").text
        check(metric == "sent-once", f"the delivered metric should be sent-once, the page says {metric!r}")
        check(detail.find_element(By.ID, "android-tap").text, "no tap destination shown")
        width = wait(driver, 30, lambda d: d.execute_script(
            "const i = document.querySelector('#device-detail .shade img'); return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth : 0"),
            "the picture in the Android shade")
        if screenshot:
            driver.save_screenshot(screenshot)
        # The demo's Retainza iPhone: its push, the handler and the phone's timeline (docs/retainza.md).
        rz = wait(driver, 30, lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".device-item[data-device=iphone-retainza]")],
                  "the Retainza iPhone 'iphone-retainza' in the device list")[0]
        check("pushlab demo on Retainza" in rz.text, f"the Retainza notification's title is not listed: {rz.text!r}")
        rz.click()
        message = wait(driver, 30, lambda d: d.find_elements(By.ID, "retainza-message"), "the Retainza message id")[0].text
        timeline = driver.find_element(By.ID, "retainza-timeline").text
        check("handleFCMToken(" in timeline and "arrived in the background" in timeline, f"the Retainza timeline lacks its steps: {timeline!r}")
        # Each line starts with its offset from the first: t+0 s … (it read t+NaN s when the
        # page parsed the API's millisecond numbers as date strings).
        check(re.match(r"t\+0 s ", timeline) and all(re.match(r"t\+\d+ s ", l) for l in timeline.splitlines()),
              f"the Retainza timeline's offsets are not whole seconds from the first entry: {timeline!r}")
        return {"android_channel": channel, "android_metric": metric, "android_picture_width": width, "retainza_message": message}
    finally:
        demo.send_signal(signal.SIGTERM)
        try:
            code = demo.wait(timeout=30)
        except subprocess.TimeoutExpired:
            demo.kill()
            raise Failure("pushlab demo --console did not stop on SIGTERM")
        check(code == 0, f"pushlab demo --console exited {code} after SIGTERM")


def remote_token_view(root, pushlab):
    """`serve --console --console-remote`: the console link pushlab printed (with the token it
    made) opens the page in Chromium, the token leaves the address bar, the live stream runs on
    the cookie and shows a push sent with the CLI; a browser without the token gets 401."""
    serve, urls = start_serve(root, pushlab, "--console-remote")
    drivers = []
    try:
        link = urls["console"]
        check("?token=plc_" in link, f"the console line should carry the token pushlab made: {link!r}")
        bare = link.split("?", 1)[0]
        driver = browser(1200, 800)
        drivers.append(driver)
        driver.get(link)
        wait(driver, 30, lambda d: "live" == d.find_element(By.ID, "live").text, "the live stream to connect with the cookie")
        check("token=" not in driver.current_url, f"the token should leave the address bar: {driver.current_url}")
        apns_id = send_cli(root, pushlab, urls["apns"], "c0ffee" + "1" * 58, "--title", "Remote", "--body", "with a token")
        wait(driver, 30, lambda d: d.find_elements(By.XPATH, f"//div[@id='log-rows']/div[contains(., '{apns_id}')]"),
             "the CLI's push in the remote console's log")
        stranger = browser(800, 600)
        drivers.append(stranger)
        stranger.get(bare)
        body = wait(stranger, 15, lambda d: d.find_element(By.TAG_NAME, "body").text, "the refusal")
        check("access token" in body and "plc_" not in body, f"a browser without the token should be refused: {body[:200]!r}")
        return {"remote_token": "ok"}
    finally:
        for d in drivers:
            d.quit()
        stop(serve)


# Chromium stays on loopback: no background, component, variations, sync or safe-browsing
# traffic; the services it still calls at start (the component updater, Google accounts, the
# network time) are pointed at a closed loopback port; and every host name but localhost resolves
# to nothing (--host-resolver-rules). Each browser writes a net log; `loopback_only` reads them
# after the run, and a run in which Chromium tried any other host fails, naming it.
def _closed_port():
    """A loopback port bound and never listening, held for this process: it refuses connections."""
    import socket
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    _closed_port.socket = sock
    return sock.getsockname()[1]


CLOSED = f"http://127.0.0.1:{_closed_port()}"
QUIET = ("--disable-background-networking", "--disable-component-update", "--disable-default-apps", "--disable-sync",
         "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--disable-breakpad",
         "--no-default-browser-check", "--metrics-recording-only", "--no-pings", "--disable-notifications",
         "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,"
         "CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,DialMediaRouteProvider,"
         "NetworkTimeServiceQuerying",
         f"--component-updater=url-source={CLOSED}/", f"--gaia-url={CLOSED}", f"--google-apis-url={CLOSED}",
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]")
LOOPBACK = {"localhost", "127.0.0.1", "::1"}
NET_LOGS = []


def browser(width, height):
    for path in (CHROMIUM, CHROMEDRIVER):
        check(os.path.exists(path), f"{path} is missing: scripts/bootstrap installs chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    net_log = tempfile.NamedTemporaryFile(prefix="pushlab-chromium-", suffix=".netlog.json", delete=False).name
    NET_LOGS.append(net_log)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={width},{height}",
                "--disable-extensions", "--no-first-run", "--force-device-scale-factor=1",
                f"--log-net-log={net_log}", "--net-log-capture-mode=Default") + QUIET:
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def hosts_tried(net_log_text):
    """Host names in a Chromium net log's events (URLs requested, names resolved, sockets)."""
    from urllib.parse import urlsplit
    events = net_log_text[net_log_text.find('"events"'):] if '"events"' in net_log_text else net_log_text
    hosts = set()
    for key, value in re.findall(r'"(url|host|origin|server|proxy_server)":\s*"([^"]*)"', events):
        value = value.strip()
        if not value or value.startswith(("data:", "about:", "chrome:", "chrome-", "blob:", "file:", "devtools:")):
            continue
        target = value if "://" in value else "//" + value
        try:
            host = urlsplit(target).hostname
        except ValueError:
            host = value
        if host and host.lower() != "~notfound":  # the resolver rule's own target, not a host
            hosts.add(host.strip("[]").lower())
    return hosts


def loopback_only(status):
    """The run's exit status, made 1 when any browser of this run tried a host that is not loopback."""
    outside = set()
    for path in NET_LOGS:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                outside |= hosts_tried(f.read()) - LOOPBACK
        except OSError as e:
            print(f"the browser's net log {path} is unreadable: {e}", file=sys.stderr)
            status = 1
        finally:
            if os.path.exists(path):
                os.unlink(path)
    if outside:
        print("Chromium tried hosts that are not loopback (a test must stay offline): " + ", ".join(sorted(outside)), file=sys.stderr)
        return 1
    return status


def guard_self_test():
    """Shows the guard can fail: a page served on 127.0.0.1 (it must load: loopback is allowed)
    that fetches an image from an outside host must make the run fail, naming that host."""
    import socketserver

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<title>loopback page</title><img src='https://pushlab-guard-check.example/x.png'>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server = socketserver.TCPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    driver = browser(400, 300)
    status = 0
    try:
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/")
        if driver.title != "loopback page":
            print(f"the page on 127.0.0.1 did not load: {driver.title!r}", file=sys.stderr)
            status = 1
        # The image's load ending (it cannot resolve) is the event that Chromium tried the host.
        wait(driver, 20, lambda d: d.execute_script("return document.images[0].complete"), "the outside image's load to end")
    finally:
        driver.quit()
        server.shutdown()
    return loopback_only(status)


def wait(driver, seconds, condition, what):
    # The log re-renders its rows as pushes stream in: an element read a moment ago may be gone,
    # so a stale element is one more poll, not a failure.
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))
    except TimeoutException:
        raise Failure(f"timed out after {seconds} s: {what}")


def run(args):
    root = os.path.abspath(args.root)
    images = start_image_server(root)
    image_url = f"https://localhost:{images.server_address[1]}/demo-image.png"
    serve, urls = start_serve(root, args.pushlab)
    driver = None
    result = {"prefill": args.prefill}
    try:
        console = urls["console"]
        if args.prefill:
            result["prefill_seconds"] = round(prefill(root, args.pushlab, urls["apns"], args.prefill), 2)
            deadline = time.time() + 30
            while get_json(console + "/api/status")["pushes"] < args.prefill and time.time() < deadline:
                time.sleep(0.05)
            check(get_json(console + "/api/status")["pushes"] >= args.prefill, "the console's log did not get every prefilled push")

        driver = browser(1440, 960)
        driver.get(console)
        first_page = wait(driver, 15, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-first-page-ms"),
                          "the first page of the log")
        result["first_page_ms"] = int(first_page)
        result["log_total"] = get_json(console + "/api/status")["pushes"]
        if args.prefill:
            check(f"{args.prefill:,}" in driver.find_element(By.ID, "count").text,
                  f"the page does not show the {args.prefill:,} pushes: {driver.find_element(By.ID, 'count').text!r}")
            rows = len(driver.find_elements(By.CSS_SELECTOR, "#log-rows .row"))
            check(0 < rows < 200, f"the log should render only the visible rows, rendered {rows}")
            result["rendered_rows"] = rows
        wait(driver, 30, lambda d: "live" == d.find_element(By.ID, "live").text, "the live stream to connect")
        driver.execute_script("window.__sameDocument = true")

        # Other traffic first: a plain alert, and a request APNs rejects (curl, an independent client).
        send_cli(root, args.pushlab, urls["apns"], "abcdef" + "2" * 58, "--title", "Order shipped", "--body", "Arrives Thursday")
        rejected = subprocess.run(["curl", "-s", "--http2", "--cacert", "certs/ca.pem", "-H", "apns-topic: io.pushlab.demo",
                                   "-d", '{"aps":{"alert":"hi"}}', urls["apns"] + "/3/device/abc"], cwd=root, capture_output=True, text=True)
        check("BadDeviceToken" in rejected.stdout, f"curl's push should be rejected with BadDeviceToken: {rejected.stdout!r}")
        wait(driver, 30, lambda d: any("BadDeviceToken" in r.text for r in d.find_elements(By.CSS_SELECTOR, "#log-rows .row")),
             "the rejected push (BadDeviceToken) in the log")

        # 1. A push sent with the CLI appears without a reload.
        token = "c0ffee" + "0" * 58
        sent = time.time()
        apns_id = send_cli(root, args.pushlab, urls["apns"], token, "--title", "Spring sale", "--subtitle", "Today only",
                           "--body", "30% off everything in the spring collection.", "--image", image_url,
                           "--link", "pushlab://orders/42", "--delivery-id", "dlv-console-1", "--delivery-token", "tok-console-1")
        row_xpath = f"//div[@id='log-rows']/div[contains(., '{apns_id}')]"
        wait(driver, 30, lambda d: d.find_elements(By.XPATH, row_xpath), f"the CLI's push {apns_id} in the log")
        result["live_seconds"] = round(time.time() - sent, 3)
        check(driver.execute_script("return window.__sameDocument === true"), "the page was reloaded")
        row_text = wait(driver, 30, lambda d: d.find_element(By.XPATH, row_xpath).text, "the row's text")
        check("c0ffee00…" in row_text, f"the row should show the token shortened: {row_text!r}")
        check(token not in driver.page_source, "the full device token reached the page")

        # 2. Its detail: the timeline against the budget and the lock-screen preview.
        wait(driver, 30, lambda d: d.find_element(By.XPATH, row_xpath).click() or True, "a click on the push's row")
        detail = wait(driver, 30, lambda d: d.find_elements(By.CSS_SELECTOR, "#detail svg.chart"), "the extension timeline chart")
        panel = driver.find_element(By.ID, "detail")
        for text in ("Extension timeline", "image download", "metric request", "expiry 30000 ms", "Spring sale", "Today only",
                     "30% off everything", "io.pushlab.demo", "Tap", "tier 1", "apns-unique-id", "CIO-Delivery-ID"):
            check(text in panel.text or text in panel.get_attribute("innerHTML"), f"the push's detail lacks {text!r}")
        bars = panel.find_elements(By.CSS_SELECTOR, "svg.chart rect[rx]")
        check(len(bars) >= 2, f"expected bars for the image download and the metric request, found {len(bars)}")
        img = wait(driver, 30, lambda d: d.execute_script(
            "const i = document.querySelector('#detail .notif img'); return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth : 0"),
            "the attached image's thumbnail in the preview")
        result["thumbnail_width"] = img
        if args.screenshot:
            driver.save_screenshot(args.screenshot)
        if args.docs_png:
            driver.save_screenshot(args.docs_png)

        # 3. An invalid payload in the send form: the finding at its pointer, as you type.
        driver.find_element(By.CSS_SELECTOR, "#tabs button[data-tab=send]").click()
        payload = driver.find_element(By.ID, "s-payload")
        payload.clear()
        payload.send_keys('{"aps": {"alert": {"title": "Hi"}, "badge": "3"}}')
        finding = wait(driver, 30, lambda d: [li for li in d.find_elements(By.CSS_SELECTOR, "#findings li") if "/aps/badge" in li.text],
                       "the aps.badge.type finding at /aps/badge")[0]
        check("aps.badge.type" in finding.text and "fix:" in finding.text, f"the finding should name its rule and fix: {finding.text!r}")

        # 4. Send from the form: accepted, and recorded by the gateway.
        driver.find_element(By.ID, "s-token").send_keys("f00d" + "1" * 60)
        title = driver.find_element(By.ID, "s-title")
        title.send_keys("Sent from the console")
        driver.find_element(By.ID, "s-subtitle").send_keys("Today only")
        # The preview without an image: the subtitle has its own line under the title, as iOS
        # draws it (it used to sit beside the title in the image's column).
        lines = wait(driver, 30, lambda d: d.execute_script(
            "const n = document.querySelector('#send-preview .notif'); if (!n || !n.textContent.includes('Today only')) return null;"
            " const top = (c) => n.querySelector(c).getBoundingClientRect().top; return [top('.title'), top('.subtitle'), top('.body')];"),
            "the send form's preview with the subtitle")
        check(lines[0] < lines[1] <= lines[2], f"the subtitle should be on its own line under the title, tops {lines}")
        try:
            wait(driver, 30, lambda d: "Sent from the console" in d.find_element(By.ID, "s-payload").get_attribute("value")
                 and any("no findings" in li.text for li in d.find_elements(By.CSS_SELECTOR, "#findings li")),
                 "the fields to rewrite the payload and the findings to clear")
        except Failure as f:
            raise Failure(f"{f}; payload {driver.find_element(By.ID, 's-payload').get_attribute('value')!r}, "
                          f"findings {driver.find_element(By.ID, 'findings').text!r}")
        driver.find_element(By.ID, "s-send").click()
        answer = wait(driver, 30, lambda d: [e for e in d.find_elements(By.ID, "send-result") if e.text], "the send answer")[0]
        check(answer.text.startswith("accepted 200"), f"the form's push was not accepted: {answer.text!r}")
        form_id = answer.text.split("· ")[-1].strip()
        admin = urls.get("h2c", console.rsplit("/console", 1)[0])
        recorded = get_json(admin + "/admin/pushes?limit=50")["pushes"]
        check(any(p.get("messageID") == form_id and "Sent from the console" in p.get("payload", "") for p in recorded),
              f"the gateway did not record the form's push {form_id}")
        driver.find_element(By.CSS_SELECTOR, "#tabs button[data-tab=log]").click()
        wait(driver, 30, lambda d: d.find_elements(By.XPATH, f"//div[@id='log-rows']/div[contains(., '{form_id}')]"),
             "the form's push in the log")
        if args.send_screenshot:
            driver.find_element(By.CSS_SELECTOR, "#tabs button[data-tab=send]").click()
            driver.save_screenshot(args.send_screenshot)

        # 5. The virtual Android phone in the device view (the demo's Android step).
        if not args.skip_android:
            result.update(android_view(driver, root, args.pushlab, args.android_screenshot))
        # 6. The console opened to other peers, behind its access token.
        if args.remote_token:
            result.update(remote_token_view(root, args.pushlab))
        return report(result)
    except Failure as f:
        if driver and args.screenshot:
            driver.save_screenshot(args.screenshot)
        return report(result, f)
    finally:
        if driver:
            driver.quit()
        stop(serve)
        images.shutdown()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."), help="repository root")
    parser.add_argument("--pushlab", default=None, help="the pushlab binary (default: .build/debug/pushlab)")
    parser.add_argument("--prefill", type=int, default=0, help="pushes to send through the gateway before the page opens")
    parser.add_argument("--screenshot", help="save the log with the open push here (PNG)")
    parser.add_argument("--send-screenshot", help="save the send form here (PNG)")
    parser.add_argument("--docs-png", help="also save the screenshot here (docs/console.png)")
    parser.add_argument("--android-screenshot", help="save the Android phone's device view here (PNG)")
    parser.add_argument("--skip-android", action="store_true", help="leave out the demo --console Android check (benchmarks)")
    parser.add_argument("--remote-token", action="store_true", help="also check serve --console --console-remote behind its access token")
    parser.add_argument("--guard-self-test", action="store_true",
                        help="only open a page that fetches an outside host: exits 1 naming it (the offline guard works)")
    args = parser.parse_args()
    if args.guard_self_test:
        sys.exit(guard_self_test())
    args.pushlab = os.path.abspath(args.pushlab or os.path.join(args.root, ".build/debug/pushlab"))
    sys.exit(loopback_only(run(args)))


if __name__ == "__main__":
    main()
