#!/usr/bin/env python3
"""`formsctl serve` in a real browser: headless Chromium driven by Selenium (chromedriver).

BrowserTests.swift prepares a store, starts `formsctl serve --port 0` in it and runs this script
with the URL the server printed. The script does what a person does in the browser and checks
what the pages show; BrowserTests then checks the store itself (`formsctl get`, `formsctl log`).

Usage: serve_browser.py --url URL --store DIR --formsctl BIN --screenshots DIR
       --draft ID --review ID --hostile ID --live ID

Every check that fails ends the script with exit 1 and one line on stderr ("FAILED: ...");
each step that passes prints "ok: ..."; a known fault of the server prints "BUG NAME: ..." and
the run goes on (BrowserTests expects each as a known issue, so that its fix is noticed).
Exit 2: Selenium or the browser could not be started.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as error:  # BrowserTests checks for Selenium first; this is for a person running it by hand
    print(f"selenium is not installed ({error}); pip install selenium", file=sys.stderr)
    sys.exit(2)

HOSTILE_TITLE = '<script>window.__pwned=1</script>"onmouseover=alert(1)'


class Failed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


def ok(message):
    print(f"ok: {message}", flush=True)


def bug(name, message):
    """A known fault of the server (BrowserTests holds each as a known issue): said, and the run goes on."""
    print(f"BUG {name}: {message}", flush=True)


def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("FORMSCTL_CHROMIUM", "/usr/bin/chromium")
    for argument in [
        "--headless=new",
        "--no-sandbox",  # CI runs as root in a container
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        f"--user-data-dir={profile}",
    ]:
        options.add_argument(argument)
    service = Service(executable_path=os.environ.get("FORMSCTL_CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(20)
    return driver


class Session:
    def __init__(self, driver, args):
        self.driver = driver
        self.args = args
        self.base = args.url.split("/?", 1)[0]

    def wait(self, condition, message, timeout=5):
        """Until `condition` holds; an element it looks at may be missing or replaced meanwhile (a
        live page swaps its content), which counts as not yet."""
        def holds(_):
            try:
                return condition()
            except (Failed, StaleElementReferenceException):
                return False
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.02).until(holds)
        except TimeoutException:
            raise Failed(f"{message} (waited {timeout} s; at {self.driver.current_url})")

    def open(self, path):
        self.driver.get(self.base + path)

    def one(self, css):
        found = self.driver.find_elements(By.CSS_SELECTOR, css)
        check(found, f"no element {css!r} on {self.driver.current_url}")
        return found[0]

    def screenshot(self, name):
        """The whole page (not only the window), through the DevTools protocol."""
        path = os.path.join(self.args.screenshots, name)
        size = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}})
        with open(path, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
        print(f"screenshot: {path}", flush=True)

    def submit(self, button_css):
        """Clicks a submit button and waits for the page it leads to."""
        old = self.one("html")
        self.one(button_css).click()
        self.wait(lambda: self.is_stale(old), f"clicking {button_css} loaded no page")
        self.wait(lambda: self.driver.execute_script("return document.readyState") == "complete",
                  "the page did not finish loading")

    @staticmethod
    def is_stale(element):
        try:
            element.tag_name
            return False
        except WebDriverException:
            return True

    def column(self, name):
        headers = [th.text.strip().rstrip(" ↑↓") for th in self.driver.find_elements(By.CSS_SELECTOR, "#list thead th")]
        check(name in headers, f"the list has no column {name!r}: {headers}")
        return headers.index(name)

    def rows(self):
        return self.driver.find_elements(By.CSS_SELECTOR, "#list tbody tr")

    def field_input(self, pointer):
        return self.one(f'[name="{pointer}"]')

    def type_into(self, pointer, text):
        element = self.field_input(pointer)
        element.clear()
        element.send_keys(text)

    # The steps, in the order a person would take them.

    def sign_in(self):
        self.driver.get(self.args.url)
        self.wait(lambda: "token=" not in self.driver.current_url, "the token URL did not redirect")
        check(self.driver.find_elements(By.CSS_SELECTOR, "table.kinds"), "the home page lists no kinds")
        cookies = {cookie["name"]: cookie for cookie in self.driver.get_cookies()}
        # Each server names its cookie (formsctl_PORT, or formsctl_ and random hex on --port 0).
        cookie = next((value for name, value in cookies.items() if name.startswith("formsctl_")), None)
        check(cookie is not None, f"no token cookie after the printed URL: {list(cookies)}")
        check(cookie.get("httpOnly") is True, "the token cookie is not HttpOnly")
        check(cookie.get("sameSite") == "Strict", f"the token cookie is SameSite={cookie.get('sameSite')}")
        ok("the printed URL set an HttpOnly, SameSite=Strict cookie and went on to the home page")

    def list_and_filter(self):
        self.one('a[href="/k/form"]').click()
        self.wait(lambda: self.driver.current_url.endswith("/k/form") and self.rows(), "the form list shows no rows")
        everything = len(self.rows())
        types = self.column("form_type")
        kinds = {row.find_elements(By.TAG_NAME, "td")[types].text for row in self.rows()}
        check(len(kinds) > 1, f"the unfiltered list shows one form type only: {kinds}")
        box = self.one("#where")
        box.clear()
        box.send_keys('form_type == "SF1449"')
        self.submit('form.filter button[type="submit"]')
        rows = self.rows()
        shown = [row.find_elements(By.TAG_NAME, "td")[types].text for row in rows]
        check(rows and all(kind == "SF1449" for kind in shown), f"the filter showed {shown}")
        check(len(rows) < everything, "the filter hid nothing")
        check(any(row.get_attribute("data-id") == self.args.draft for row in rows), "the draft SF 1449 is not listed")
        check(self.one("#where").get_attribute("value") == 'form_type == "SF1449"', "the filter box lost its text")
        ok(f"the filter form_type == \"SF1449\" shows {len(rows)} of {everything} rows, all SF1449")
        self.screenshot("list.png")
        box = self.one("#where")
        box.clear()
        box.send_keys('stauts == "draft"')
        self.submit('form.filter button[type="submit"]')
        problem = self.one("#filter-problem").text
        check("did you mean" in problem and "status" in problem, f"a bad filter said {problem!r}")
        check(not self.rows(), "a bad filter still listed rows")
        ok(f"a misspelt filter says: {problem}")

    def edit_with_an_error(self):
        self.open("/k/form?where=" + "form_type%20%3D%3D%20%22SF1449%22")
        self.one(f'#list tr[data-id="{self.args.draft}"] a').click()
        self.wait(lambda: self.driver.current_url.endswith("/k/form/" + self.args.draft), "the SF 1449 did not open")
        self.one('nav.actions a[href$="/edit"]').click()
        self.wait(lambda: self.driver.current_url.endswith("/edit"), "the edit form did not open")
        self.type_into("/fields/solicitation_number", "36C26026Q0999")
        self.type_into("/fields/naics_code", "12AB")
        self.type_into("/fields/total_amount", "1234.50")
        self.submit('button[name="_action"][value="save"]')
        field = self.one('div.field[data-pointer="/fields/naics_code"]')
        problems = field.find_elements(By.CSS_SELECTOR, "ul.field-problems li")
        check(problems, "no diagnostic beside /fields/naics_code")
        text = problems[0].text
        check("pattern" in text, f"the diagnostic at naics_code says {text!r}")
        check(self.field_input("/fields/naics_code").get_attribute("aria-invalid") == "true",
              "the invalid input is not marked aria-invalid")
        kept = {pointer: self.field_input(pointer).get_attribute("value")
                for pointer in ["/fields/solicitation_number", "/fields/naics_code", "/fields/total_amount"]}
        check(kept == {"/fields/solicitation_number": "36C26026Q0999", "/fields/naics_code": "12AB",
                       "/fields/total_amount": "1234.50"}, f"the form did not keep what was typed: {kept}")
        others = [element.text for element in self.driver.find_elements(By.CSS_SELECTOR, "ul.field-problems")]
        check(len(others) == 1, f"diagnostics shown at other fields too: {others}")
        ok(f"12AB at /fields/naics_code: {text!r} beside the field, everything typed kept")
        self.screenshot("edit-error.png")
        self.type_into("/fields/naics_code", "541511")
        self.submit('button[name="_action"][value="save"]')
        self.wait(lambda: self.driver.current_url.endswith("/k/form/" + self.args.draft),
                  "the fixed form did not save (no redirect to the document)")
        shown = self.one('dd[data-field="naics_code"]').text
        check(shown == "541511", f"the document page shows naics_code {shown!r}")
        check(self.one('dd[data-field="total_amount"]').text == "1234.50", "total_amount not kept as typed")
        ok("fixed to 541511 and saved; the document page shows it")
        # A move the rules refuse (an SF 1449 in review needs its items): the page says which rule.
        self.submit('form.workflow button[name="state"][value="in_review"]')
        text = self.one("main").text
        check("nothing written" in text or "not valid" in text, f"a refused move to in_review showed {text!r}")
        if "needs its solicitation number and items" not in text:
            bug("refused-move-diagnostics", f"a move the rules refuse names no rule: {text!r}")
        else:
            ok("a refused move to in_review names the rule it breaks")

    def print_view(self):
        self.open(f"/k/form/{self.args.draft}/print")
        check(self.one("header.form-head .number").text == "SF 1449", "the print view names no SF 1449")
        check("541511" in self.one("ol.blocks").text, "the print view does not show the saved NAICS code")
        # Its style is inline (the page is self-contained); a policy that blocks it prints it unstyled.
        display = self.driver.execute_script(
            "return getComputedStyle(document.querySelector('header.form-head')).display")
        check(display == "grid", f"the print view is not styled (its head is display: {display})")
        ok("the print view shows the SF 1449 with the saved NAICS code")
        self.screenshot("print.png")

    def approve(self):
        self.open(f"/k/form/{self.args.review}")
        check("in_review" in self.one("form.workflow .state").text, "the form to approve is not in review")
        self.one("form.approve #comment").send_keys("checked in the browser")
        self.submit('form.approve button[name="decision"][value="approve"]')
        self.wait(lambda: self.driver.current_url.endswith("/k/form/" + self.args.review), "approving went elsewhere")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "section.approvals tbody tr")
        actions = [row.find_elements(By.TAG_NAME, "td")[0].text for row in rows]
        check("approve" in actions, f"the approvals after Approve: {actions}")
        check(not self.driver.find_elements(By.CSS_SELECTOR, "form.approve"), "the form still waits for this signature")
        ok(f"approved in the browser; the page lists the approvals {actions}")

    def live_update(self):
        self.open(f"/k/acquisition/{self.args.live}")
        self.wait(lambda: self.driver.execute_script("return document.body.dataset.live") == f"acquisition/{self.args.live}",
                  "the document page is not live")
        # The page keeps this mark only if it is never reloaded.
        self.driver.execute_script("window.__notReloaded = true")
        time.sleep(0.3)  # the event stream connects after the page loads
        title = f"Changed from a terminal {int(time.time())}"
        started = time.monotonic()
        done = subprocess.run([self.args.formsctl, "set", "acquisition", self.args.live, f"title={title}"],
                              cwd=self.args.store, capture_output=True, text=True)
        written = time.monotonic()
        check(done.returncode == 0, f"formsctl set failed ({done.returncode}): {done.stderr.strip()}")
        self.wait(lambda: title in self.one("h1").text, "the page did not show the change within 3 s", timeout=3)
        shown = time.monotonic()
        check(self.driver.execute_script("return window.__notReloaded === true"), "the page was reloaded")
        check(self.driver.execute_script("return document.body.dataset.refreshed !== undefined"),
              "body[data-refreshed] is not set")
        print(f"live: formsctl set took {1000 * (written - started):.0f} ms; the page showed the new title "
              f"{1000 * (shown - written):.0f} ms after it returned ({1000 * (shown - started):.0f} ms after it started)",
              flush=True)
        ok("a formsctl set from another process appeared without a reload")

    def formsctl(self, *arguments):
        done = subprocess.run([self.args.formsctl, *arguments], cwd=self.args.store, capture_output=True, text=True)
        check(done.returncode == 0, f"formsctl {' '.join(arguments)} failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def live_list(self):
        self.open("/k/acquisition")
        self.wait(lambda: self.driver.execute_script("return document.body.dataset.live") == "acquisition",
                  "the list is not live")
        self.driver.execute_script("window.__notReloaded = true")
        time.sleep(0.3)
        agency = f"Agency changed from a terminal {int(time.time())}"
        started = time.monotonic()
        self.formsctl("set", "acquisition", "ACQ-2026-003", f"agency={agency}")
        self.wait(lambda: agency in self.one('#list tr[data-id="ACQ-2026-003"]').text,
                  "the list did not show the change within 3 s", timeout=3)
        check(self.driver.execute_script("return window.__notReloaded === true"), "the list was reloaded")
        print(f"live: the list showed a formsctl set {1000 * (time.monotonic() - started):.0f} ms after it started",
              flush=True)
        ok("a formsctl set from another process appeared in the open list without a reload")

    def conflict(self):
        """A form being filled is never replaced: a change from elsewhere is said, and saving over it shows both."""
        self.open("/k/acquisition/ACQ-2026-004/edit")
        check(self.driver.execute_script("return document.body.dataset.editing") == "acquisition/ACQ-2026-004",
              "the edit form does not follow its document")
        time.sleep(0.3)
        self.type_into("/agency", "Typed in the browser")
        self.formsctl("set", "acquisition", "ACQ-2026-004", "agency=Set from a terminal")
        self.wait(lambda: self.one("#live-note").is_displayed(), "the form did not say its document changed", timeout=3)
        check(self.field_input("/agency").get_attribute("value") == "Typed in the browser",
              "the form was replaced under the person's hands")
        ok(f"the open form says: {self.one('#live-note').text}")
        self.submit('button[name="_action"][value="save"]')
        theirs, yours = self.one("#theirs").text, self.one("#yours").text
        check("Set from a terminal" in theirs and "Typed in the browser" in yours,
              f"the conflict page does not show both versions: {theirs!r} / {yours!r}")
        stored = self.formsctl("get", "acquisition", "ACQ-2026-004", "--field", "agency")
        check(stored.strip() == "Set from a terminal", f"the save over a changed document wrote: {stored!r}")
        ok("a save over a document changed elsewhere wrote nothing and showed both versions")

    def relation_picker(self):
        """A relation field offers the target kind's ids (and titles) that start with what is typed."""
        self.open("/k/form/new")
        picker = self.field_input("/acquisition_id")
        check(picker.get_attribute("list") == "choices-acquisition_id", "acquisition_id is not a relation picker")
        picker.send_keys("ACQ-2026-66")
        options = "return Array.from(document.querySelectorAll('#choices-acquisition_id option')).map(o => o.value)"
        self.wait(lambda: self.driver.execute_script(options) == [self.args.hostile],
                  f"typing ACQ-2026-66 did not narrow the choices to {self.args.hostile}", timeout=3)
        ok(f"the relation picker narrows to {self.args.hostile} as its id is typed")

    def hostile_title(self):
        # Its page and the list show it; a form's relation picker holds it as an option's label.
        for path in [f"/k/acquisition/{self.args.hostile}", "/k/acquisition", "/k/form/new"]:
            self.open(path)
            if path == "/k/form/new":
                labels = self.driver.execute_script(
                    "return Array.from(document.querySelectorAll('#choices-acquisition_id option')).map(o => o.textContent)")
                check(HOSTILE_TITLE in labels, f"the relation picker does not offer the title as text: {labels}")
            else:
                check(HOSTILE_TITLE in self.one("main").text, f"{path} does not show the title as text")
            check(self.driver.execute_script("return typeof window.__pwned") == "undefined",
                  f"{path}: the title's script ran")
            attributes = self.driver.execute_script(
                "return Array.from(document.querySelectorAll('*')).filter(function (e) {"
                " return Array.from(e.attributes).some(function (a) { return a.name.indexOf('on') === 0; }); })"
                ".map(function (e) { return e.outerHTML.slice(0, 120); })")
            check(not attributes, f"{path}: elements with event handler attributes: {attributes}")
            scripts = [s.get_attribute("src") for s in self.driver.find_elements(By.TAG_NAME, "script")]
            check(all(src and src.endswith("/assets/app.js") for src in scripts), f"{path}: scripts {scripts}")
        self.open(f"/k/acquisition/{self.args.hostile}")
        check(HOSTILE_TITLE in self.one("h1").text, "the heading does not show the title as text")
        ok("the hostile title shows as text on its page, in the list and in a relation picker; no script ran, "
           "no handler attribute")
        self.screenshot("hostile.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ["url", "store", "formsctl", "screenshots", "draft", "review", "hostile", "live"]:
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    os.makedirs(args.screenshots, exist_ok=True)
    stale = os.path.join(args.screenshots, "failure.png")
    if os.path.exists(stale):
        os.remove(stale)  # a failure of an earlier run
    with tempfile.TemporaryDirectory(prefix="formsctl-chromium-") as profile:
        try:
            driver = browser(profile)
        except WebDriverException as error:
            print(f"the browser could not be started: {error.msg}", file=sys.stderr)
            return 2
        session = Session(driver, args)
        try:
            for step in [session.sign_in, session.list_and_filter, session.edit_with_an_error, session.print_view,
                         session.approve, session.live_update, session.live_list, session.conflict,
                         session.relation_picker, session.hostile_title]:
                step()
            # What the browser's console said: a policy violation is a page that does not work as written.
            errors = [entry.get("message", "") for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
            for message in errors:
                print(f"browser console: {message}", flush=True)
            blocked = [message for message in errors if "Content Security Policy" in message]
            check(not blocked, f"the browser blocked what a page asked for: {blocked}")
        except Failed as failure:
            print(f"FAILED: {failure}", file=sys.stderr)
            try:
                session.screenshot("failure.png")
            except Exception:  # the failure is what matters
                pass
            return 1
        finally:
            driver.quit()
    print(json.dumps({"passed": True}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
