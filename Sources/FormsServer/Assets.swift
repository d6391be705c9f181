/// The application's stylesheet and its one script, served from the program (nothing is fetched
/// from the internet, there is no build step). The script only makes pages live: every form and
/// link works without it.
enum Assets {
  static let css = """
    :root{--fg:#1b1f23;--muted:#57606a;--line:#d0d7de;--accent:#0a58ca;--bad:#b42318;--bg-bad:#fdecea}
    *{box-sizing:border-box}
    body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0}
    header{background:#f6f8fa;border-bottom:1px solid var(--line);padding:.5em 1em}
    header nav{display:flex;justify-content:space-between}
    .home{font-weight:bold;text-decoration:none;color:var(--fg)}.who{color:var(--muted)}
    main{padding:1em 1.5em;max-width:80em}
    h1 small{color:var(--muted);font-weight:normal;font-size:.6em}
    a{color:var(--accent)}
    table{border-collapse:collapse;margin:.5em 0}th,td{border-bottom:1px solid var(--line);padding:.3em .6em;text-align:left;vertical-align:top}
    th a{text-decoration:none}
    .error,.problems,.field-problems{color:var(--bad)}
    .problems,.error{background:var(--bg-bad);padding:.5em 1em;border-radius:4px}
    .field-problems{margin:.2em 0;padding-left:1.2em;font-size:.9em}
    .rule{color:var(--muted);font-size:.85em}
    .warning{background:#fff8c5;padding:.5em 1em}
    .live-note{background:#fff8c5;margin:.5em 0 0;padding:.4em .8em}
    .field{margin:.6em 0;display:grid;grid-template-columns:14em 1fr;gap:.2em 1em;align-items:start}
    .field>label{font-weight:600}.field>.help,.field>.field-problems{grid-column:2}
    input[type=text],input[type=date],input[type=search],select,textarea{font:inherit;padding:.3em;border:1px solid var(--line);border-radius:4px;width:100%;max-width:40em}
    [aria-invalid=true]{border-color:var(--bad);background:var(--bg-bad)}
    textarea.json{font-family:ui-monospace,monospace}
    fieldset{border:1px solid var(--line);border-radius:6px;margin:.8em 0;padding:.5em 1em}
    legend{font-weight:600}
    .required{color:var(--bad);text-decoration:none}
    button,.button{font:inherit;padding:.3em .8em;border:1px solid var(--line);border-radius:4px;background:#f6f8fa;color:var(--fg);text-decoration:none;cursor:pointer;display:inline-block}
    .primary{background:var(--accent);color:#fff;border-color:var(--accent)}
    .danger{color:var(--bad)}
    nav.actions{margin:.5em 0 1em;display:flex;flex-wrap:wrap;gap:.5em;align-items:center}
    nav.actions form{display:inline-flex;gap:.4em;align-items:center;flex-wrap:wrap}
    dl{display:grid;grid-template-columns:14em 1fr;gap:.2em 1em;margin:.3em 0}dt{font-weight:600;color:var(--muted)}dd{margin:0}
    .versions{display:grid;grid-template-columns:1fr 1fr;gap:1em}pre{background:#f6f8fa;padding:.5em;overflow:auto;max-height:30em}
    .null,.missing{color:var(--muted)}
    @media print{header,nav.actions,.filter,.paging{display:none}}
    """

  static let script = """
    // formsctl serve: live pages. A list or a document reloads its content when the store changes
    // what it shows (another tab, a terminal, an editor, a pull); a form being filled is never
    // replaced: it says the document changed, and saving shows both versions first.
    (function () {
      "use strict";
      var body = document.body;
      var live = body.dataset.live, editing = body.dataset.editing;
      var note = document.getElementById("live-note");
      function say(text) { if (note) { note.textContent = text; note.hidden = false; } }
      function concerns(topic) {
        return live === "*" || live === topic || live === topic.split("/")[0];
      }
      var timer = null;
      function refresh() {
        fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
          .then(function (response) {
            if (!response.ok && response.status !== 400) { throw new Error("status " + response.status); }
            return response.text();
          })
          .then(function (text) {
            var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("main");
            var main = document.getElementById("main");
            if (fresh && main) { main.replaceWith(document.adoptNode(fresh)); }
            body.dataset.refreshed = String(Date.now());
          })
          .catch(function (error) { say("Could not refresh this page: " + error.message); });
      }
      if (live || editing) {
        var source = new EventSource("/events");
        source.onmessage = function (event) {
          var topic = String(event.data);
          if (editing && topic === editing) {
            say("This document was changed elsewhere since you opened the form. Saving shows both versions first.");
            return;
          }
          if (live && concerns(topic) && timer === null) {
            timer = setTimeout(function () { timer = null; refresh(); }, 50);
          }
        };
      }
      // Relation pickers: the ids (and titles) of the target kind that start with what is typed.
      document.addEventListener("input", function (event) {
        var input = event.target;
        if (!input.dataset || !input.dataset.lookup) { return; }
        fetch(input.dataset.lookup + "?q=" + encodeURIComponent(input.value), { credentials: "same-origin" })
          .then(function (response) { return response.ok ? response.json() : []; })
          .then(function (found) {
            var list = document.getElementById(input.getAttribute("list"));
            if (!list) { return; }
            list.replaceChildren.apply(list, found.map(function (item) {
              var option = document.createElement("option");
              option.value = item.id;
              option.textContent = item.title;
              return option;
            }));
          });
      });
    })();
    """
}
