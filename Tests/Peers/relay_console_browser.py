#!/usr/bin/env python3
"""Drives the relay's web console (`pushlab relay --console`) in real headless Chromium
(Debian's chromium + chromedriver, Selenium from .venv; nothing downloads a browser).

It starts `pushlab relay --console --console-remote` with a console token file and two apps on
the built-in emulator (declaring one dead device there), then in the browser:
- a browser without the token gets 401; the link with the token opens the console;
- the send form: an invalid payload is refused with its JSON pointer (the line flagged) and
  nothing is queued; a valid push with two targets is queued through the native API (202 and a
  `p_…` push id), its results reach the log, and the API reads the same push with an API key;
- the devices view: the tokens delivered to, shortened, with their last result, and the dead
  token in the invalid-token feed;
- the metrics tab: the counters equal to what `/metrics` exports, the queue depth;
- no page carries a whole token, the API key or key material.

Prints one JSON line; exit 0 when every check passed, 1 (the failed check on stderr) otherwise.
Used by Tests/PushConsoleTests/ConsoleBrowserTests.swift (RelayConsoleBrowserTests).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_browser import Failure, browser, check, loopback_only, report, stop, wait  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

GOOD = "3a5fe9c1fd4e48aaffab16cf9b68867772ce802b5066deb902dbfbe2b419c372"
DEAD = "0f0e0d0c0b0a09080706050403020100f0e0d0c0b0a090807060504030201000"


def request(url, token=None, data=None, headers=None):
    """(status, body text) of a GET or POST with an optional bearer token."""
    h = dict(headers or {})
    if token:
        h["authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=data.encode() if data is not None else None, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def start_relay(root, pushlab, work):
    key = os.path.join(root, "certs/AuthKey_PLDEVKEY01.p8")
    account = os.path.join(root, "certs/fcm-service-account.json")
    apns = {"key": key, "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1", "bundle_id": "io.pushlab.demo", "environment": "sandbox"}
    config = {"listen": {"host": "127.0.0.1", "port": 0},
              "apps": {"demo": {"target": "emulator", "apns": apns, "fcm": {"service_account": account}},
                       "shop": {"target": "emulator", "apns": dict(apns, bundle_id="io.pushlab.shop")}}}
    with open(os.path.join(work, "relay.json"), "w") as f:
        json.dump(config, f)
    token = "relay-console-" + os.urandom(12).hex()
    with open(os.path.join(work, "console-token"), "w") as f:
        f.write(token + "\n")
    data = os.path.join(work, "data")
    made = subprocess.run([pushlab, "relay", "keys", "create", "--data", data, "--app", "demo"], cwd=root,
                          capture_output=True, text=True, timeout=60)
    check(made.returncode == 0, f"relay keys create failed: {made.stderr}")
    api_key = made.stdout.strip()
    log = open(os.path.join(work, "relay.log"), "w+")
    proc = subprocess.Popen([pushlab, "relay", "--config", os.path.join(work, "relay.json"), "--data", data, "--console",
                             "--console-remote", "--console-token-file", os.path.join(work, "console-token"), "--quiet"],
                            cwd=root, stdout=log, stderr=subprocess.STDOUT, text=True)
    urls = {}
    deadline = time.time() + 60
    while time.time() < deadline and "console" not in urls:
        if proc.poll() is not None:
            break
        log.seek(0)
        for line in log.read().splitlines():
            if line.startswith("relay: emulator "):
                # The emulator's admin routes are on its Google host (docs/relay.md).
                m = re.search(r"FCM (\S+)", line)
                urls["emulator"] = m.group(1) if m else None
            elif line.startswith("console: "):
                urls["console"] = line.split()[1]
        time.sleep(0.05)
    if "console" not in urls:
        proc.kill()
        log.seek(0)
        raise Failure(f"pushlab relay --console did not print its console URL within 60 s: {log.read()[-800:]}")
    urls["relay"] = urls["console"].rsplit("/console", 1)[0]
    return proc, urls, token, api_key


def run(args):
    root = os.path.abspath(args.root)
    work = tempfile.mkdtemp(prefix="relay-console-browser-")
    relay, urls, token, api_key = start_relay(root, args.pushlab, work)
    drivers = []
    result = {}
    try:
        console, base = urls["console"], urls["relay"]
        # The emulator answers 410 Unregistered for the device declared dead.
        devices = subprocess.run(["curl", "-s", "--cacert", "certs/ca.pem", urls["emulator"] + "/admin/devices",
                                  "-d", "@payloads/gateway/devices.json"], cwd=root, capture_output=True, text=True, timeout=30)
        check(devices.returncode == 0, f"declaring the emulator's devices failed: {devices.stderr}")

        # Without the token: 401 for the page and for the send path.
        check(request(console)[0] == 401, "the console page answered without its token")
        status, _ = request(console + "/api/relay/apps/demo/pushes", data='{"apns": {"payload": {"aps": {"alert": "x"}}}, "targets": [{"apns": "%s"}]}' % GOOD)
        check(status == 401, f"the send path answered {status} without the console's token")
        status, _ = request(console + "/api/relay/apps/demo/pushes", token=api_key,
                            data='{"apns": {"payload": {"aps": {"alert": "x"}}}, "targets": [{"apns": "%s"}]}' % GOOD)
        check(status == 401, f"an app's API key opened the console's send path ({status})")

        driver = browser(1440, 960)
        drivers.append(driver)
        driver.get(console + "?token=" + token)
        wait(driver, 30, lambda d: "live" == d.find_element(By.ID, "live").text, "the live stream to connect")
        check("token=" not in driver.current_url, "the token stayed in the address bar")

        # 1. The send form: an invalid payload is refused at its pointer, nothing queued.
        driver.find_element(By.CSS_SELECTOR, "#tabs button[data-tab=send]").click()
        wait(driver, 15, lambda d: d.find_element(By.ID, "relay-send").is_displayed(), "the relay's send form")
        check(not driver.find_element(By.ID, "lab-send").is_displayed(), "the lab's send form shows on the relay")
        options = [o.text for o in Select(driver.find_element(By.ID, "r-app")).options]
        check(options == ["demo", "shop"], f"the app picker lists {options}")
        host = driver.find_element(By.ID, "r-host").text
        check("io.pushlab.demo" in host and "emulator" in host, f"the form does not say where demo's pushes go: {host!r}")
        driver.find_element(By.ID, "r-targets").send_keys(GOOD + "\n" + DEAD)
        body = driver.find_element(By.ID, "r-body")
        body.clear()
        body.send_keys('{"apns": {"payload": {"aps": {"alert": {"title": "Hi"}, "badge": "3"}}}}')
        driver.find_element(By.ID, "r-send").click()
        refusal = wait(driver, 30, lambda d: [e for e in d.find_elements(By.ID, "r-result") if e.text], "the refusal")[0]
        check(refusal.text.startswith("400 invalid_payload") and "/apns/payload" in refusal.text, f"the refusal: {refusal.text!r}")
        findings = driver.find_element(By.ID, "r-answer").text
        check("/apns/payload/aps/badge" in findings and "aps.badge.type" in findings, f"the finding's pointer is not shown: {findings!r}")
        flagged = driver.find_elements(By.CSS_SELECTOR, "#r-request .line.flag.error")
        check(any('"badge"' in line.text for line in flagged), f"the badge line is not flagged: {[line.text for line in flagged]}")
        status, text = request(base + "/v1/apps/demo/deliveries", token=api_key)
        check(status == 200 and json.loads(text)["deliveries"] == [], f"a refused push reached the queue: {text[:300]}")
        if args.error_screenshot:
            driver.save_screenshot(args.error_screenshot)

        # 2. A valid push: 202 with the relay's push id, results in the log, readable by the API.
        body.clear()
        body.send_keys('{"apns": {"payload": {"aps": {"alert": {"title": "From the relay console", "body": "queued like any API push"}}}}}')
        driver.find_element(By.ID, "r-send").click()
        accepted = wait(driver, 30, lambda d: [e for e in d.find_elements(By.ID, "r-result") if e.text.startswith("queued")],
                        "the push queued")[0]
        push_id = driver.find_element(By.ID, "r-push-id").text
        check(re.fullmatch(r"p_[0-9a-z]{26}", push_id) and "2 targets" in accepted.text, f"the answer: {accepted.text!r}")
        status, text = request(base + f"/v1/pushes/{push_id}?wait=10s", token=api_key)
        check(status == 200, f"the API does not know the console's push: {status} {text[:200]}")
        results = sorted((r["status"], r.get("reason")) for r in json.loads(text)["results"])
        check(results == [("failed", "Unregistered"), ("sent", None)], f"the push's results: {results}")
        result["push_id"] = push_id
        if args.send_screenshot:
            driver.save_screenshot(args.send_screenshot)
        driver.find_element(By.ID, "r-show").click()
        wait(driver, 30, lambda d: len([r for r in d.find_elements(By.CSS_SELECTOR, "#log-rows .row") if push_id in r.text or "Unregistered" in r.text]) >= 2,
             "the push's rows in the log")

        # 3. Devices: tokens delivered to with their last result, the dead one in the invalid feed.
        driver.find_element(By.CSS_SELECTOR, "#tabs button[data-tab=devices]").click()
        rows = wait(driver, 30, lambda d: d.find_elements(By.CSS_SELECTOR, "#rd-tokens tr.rd-token"), "the tokens delivered to")
        texts = [r.text for r in rows]
        check(any(GOOD[:8] + "…" in t and "sent 200" in t for t in texts), f"the live token's row: {texts}")
        check(any(DEAD[:8] + "…" in t and "Unregistered" in t for t in texts), f"the dead token's row: {texts}")
        invalid = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#rd-invalid tr.rd-invalid")]
        check(len(invalid) == 1 and DEAD[:8] + "…" in invalid[0] and "Unregistered" in invalid[0], f"the invalid-token feed: {invalid}")
        if args.devices_screenshot:
            driver.save_screenshot(args.devices_screenshot)
        Select(driver.find_element(By.ID, "rd-app")).select_by_visible_text("shop")
        wait(driver, 30, lambda d: "no final results yet for shop" in d.find_element(By.ID, "rd-tokens").text, "shop's empty device list")

        # 4. Metrics: the counters /metrics exports, the queue's depth.
        driver.find_element(By.CSS_SELECTOR, "#tabs button[data-tab=metrics]").click()
        sent = wait(driver, 30, lambda d: d.find_elements(By.CSS_SELECTOR, "#rm-apps tr[data-app=demo] .rm-sent"), "demo's counters")[0]
        admin = subprocess.run([args.pushlab, "relay", "keys", "create", "--data", os.path.join(work, "data"), "--admin"], cwd=root,
                               capture_output=True, text=True, timeout=60).stdout.strip()
        status, prometheus = request(base + "/metrics", token=admin)
        check(status == 200, f"/metrics answered {status}")

        def exported(name):
            m = re.search(r"^" + re.escape(name) + r" (\d+)$", prometheus, re.M)
            return m.group(1) if m else "0"
        page = {k: driver.find_element(By.CSS_SELECTOR, f"#rm-apps tr[data-app=demo] .rm-{k}").text for k in ("accepted", "sent", "failed")}
        check(page == {"accepted": exported('pushlab_relay_accepted_targets_total{app="demo",platform="apns"}'),
                       "sent": exported('pushlab_relay_sent_total{app="demo",platform="apns"}'),
                       "failed": exported('pushlab_relay_failed_total{app="demo",platform="apns",reason="Unregistered"}')},
              f"the page's counters {page} differ from /metrics")
        check(page["sent"] == "1" and page["failed"] == "1", f"demo's counters: {page}")
        finished = driver.find_element(By.CSS_SELECTOR, ".card[data-metric=finished] b").text
        check(finished == exported('pushlab_relay_queue_targets{state="finished"}') == "2", f"queue finished {finished!r}")
        # The rates come from two reads: the page reads again every 2 s.
        wait(driver, 15, lambda d: "/s" in d.find_element(By.ID, "rm-apps").text, "the rates after a second read")
        result["metrics"] = page
        if args.metrics_screenshot:
            driver.save_screenshot(args.metrics_screenshot)

        # 5. No page or JSON the console served carries a secret or a whole token.
        key_lines = [l for l in open(os.path.join(root, "certs/AuthKey_PLDEVKEY01.p8")).read().splitlines() if l and not l.startswith("-----")]
        served = driver.page_source
        for path in ("/api/relay", "/api/relay/devices?app=demo", "/api/relay/metrics", "/api/status", "/api/pushes?limit=200"):
            served += request(console + path, token=token)[1]
        for secret, what in ((GOOD, "a whole device token"), (DEAD, "a whole device token"), (api_key, "the API key"), (admin, "the admin key"),
                             (token, "the console token"), (key_lines[0], "the .p8 key"), ("PRIVATE KEY", "key material")):
            check(secret not in served, f"the console served {what}")
        return report(result)
    except Failure as f:
        if drivers and args.send_screenshot:
            drivers[0].save_screenshot(args.send_screenshot)
        return report(result, f, name="relay console browser test")
    finally:
        for d in drivers:
            d.quit()
        stop(relay)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."), help="repository root")
    parser.add_argument("--pushlab", default=None, help="the pushlab binary (default: .build/debug/pushlab)")
    parser.add_argument("--send-screenshot", help="save the send form with the queued push here (PNG)")
    parser.add_argument("--error-screenshot", help="save the send form with the refusal here (PNG)")
    parser.add_argument("--devices-screenshot", help="save the devices view here (PNG)")
    parser.add_argument("--metrics-screenshot", help="save the metrics tab here (PNG)")
    args = parser.parse_args()
    args.pushlab = os.path.abspath(args.pushlab or os.path.join(args.root, ".build/debug/pushlab"))
    sys.exit(loopback_only(run(args)))


if __name__ == "__main__":
    main()
