// Cairn's pages: the little that HTML cannot do. With a bearer token the
// server wants, ask for it once, keep it for the tab (sessionStorage) and
// load every page with an Authorization header; start a sync and follow
// its progress. Everything shown is set as text, never as HTML.
(function () {
  'use strict';
  var KEY = 'cairn-token';

  function tokenMode() { return document.body.dataset.token === 'required'; }
  function token() {
    try { return sessionStorage.getItem(KEY) || ''; } catch (e) { return ''; }
  }
  function setToken(t) {
    try { if (t) { sessionStorage.setItem(KEY, t); } else { sessionStorage.removeItem(KEY); } } catch (e) { /* storage off */ }
  }
  function headers(extra) {
    var h = extra || {};
    var t = token();
    if (t) { h.Authorization = 'Bearer ' + t; }
    return h;
  }

  // load fetches a page with the token and swaps its body in.
  function load(url, push) {
    return fetch(url, { headers: headers({ Accept: 'text/html' }) }).then(function (res) {
      return res.text().then(function (html) {
        var doc = new DOMParser().parseFromString(html, 'text/html');
        document.title = doc.title;
        document.body.replaceWith(document.adoptNode(doc.body));
        if (push) { history.pushState(null, '', url); }
        if (res.status === 401 && token()) {
          setToken('');
          loginError('That token was refused: enter it again.');
        }
        init();
        var u = new URL(url, location.href);
        var target = u.hash && document.getElementById(u.hash.slice(1));
        if (target) { target.scrollIntoView(); } else { window.scrollTo(0, 0); }
        var main = document.getElementById('main');
        if (main && push) { main.focus({ preventScroll: true }); }
      });
    }).catch(function (err) { loginError('Could not load the page: ' + err.message); });
  }

  function loginError(msg) {
    var p = document.getElementById('token-error');
    if (p) { p.textContent = msg; p.hidden = false; }
  }

  function sameOrigin(href) {
    try { return new URL(href, location.href).origin === location.origin; } catch (e) { return false; }
  }

  document.addEventListener('click', function (ev) {
    if (!tokenMode() || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) { return; }
    var a = ev.target.closest && ev.target.closest('a');
    if (!a) { return; }
    var href = a.getAttribute('href');
    if (!href || a.getAttribute('target') || !sameOrigin(href)) { return; }
    var u = new URL(href, location.href);
    if (u.pathname === location.pathname && u.search === location.search && u.hash) { return; } // an anchor on this page
    ev.preventDefault();
    load(u.href, true);
  });

  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (form.id === 'token-form') {
      ev.preventDefault();
      setToken(form.elements.token.value.trim());
      load(location.href, false);
      return;
    }
    if (form.classList.contains('task-form')) {
      ev.preventDefault();
      actOnTask(form, ev.submitter ? ev.submitter.value : 'resolve');
      return;
    }
    if (!tokenMode() || (form.method || 'get').toLowerCase() !== 'get') { return; }
    ev.preventDefault();
    var u = new URL(form.getAttribute('action') || location.pathname, location.href);
    u.search = new URLSearchParams(new FormData(form)).toString();
    load(u.href, true);
  });

  window.addEventListener('popstate', function () {
    if (tokenMode()) { load(location.href, false); }
  });

  // actOnTask posts an inbox action with the header state changes need,
  // then shows the inbox again.
  function actOnTask(form, action) {
    var body = { id: form.dataset.task, action: action };
    new FormData(form).forEach(function (v, k) { if (v) { body[k] = String(v); } });
    var state = document.getElementById('task-state');
    fetch('/ui/tasks', {
      method: 'POST', body: JSON.stringify(body),
      headers: headers({ 'X-Cairn-UI': '1', 'Content-Type': 'application/json', Accept: 'application/json' })
    }).then(function (res) {
      return res.json().then(function (out) {
        if (!res.ok) { state.textContent = out.error || ('status ' + res.status); return; }
        load(location.href, false).then(function () {
          var s = document.getElementById('task-state');
          if (s) { s.textContent = 'Task ' + out.id + ' ' + out.status + '.'; }
        });
      });
    }).catch(function (err) { state.textContent = 'Could not send the action: ' + err.message; });
  }

  // recluster runs a clustering and shows the clusters page again.
  function recluster() {
    var button = document.getElementById('recluster');
    var state = document.getElementById('recluster-state');
    button.disabled = true;
    state.textContent = 'Clustering…';
    fetch('/ui/recluster', { method: 'POST', headers: headers({ 'X-Cairn-UI': '1', Accept: 'application/json' }) })
      .then(function (res) {
        return res.json().then(function (out) {
          if (!res.ok) { button.disabled = false; state.textContent = out.error || ('status ' + res.status); return; }
          load(location.href, false).then(function () {
            var s = document.getElementById('recluster-state');
            if (s) { s.textContent = 'Clustered ' + out.members + ' chunks into ' + out.clusters + ' clusters (' + out.noise + ' noise).'; }
          });
        });
      })
      .catch(function (err) { button.disabled = false; state.textContent = 'Could not cluster: ' + err.message; });
  }

  // Sync: start one, then long-poll its progress while the page shows it.
  function text(tag, s, cls) {
    var el = document.createElement(tag);
    el.textContent = s;
    if (cls) { el.className = cls; }
    return el;
  }

  function line(st) {
    if (st.status === 'idle') { return 'No sync started from this page yet.'; }
    if (st.status === 'running') { return 'Syncing' + (st.corpus ? ' ' + st.corpus : '') + ': ' + st.done + ' of ' + st.total; }
    return 'Sync ' + st.status + ' at ' + st.endedAt + (st.error ? ': ' + st.error : '');
  }

  function show(st) {
    var box = document.getElementById('sync');
    if (!box) { return false; }
    box.dataset.seq = st.seq;
    box.dataset.status = st.status;
    document.getElementById('sync-state').textContent = line(st);
    var bar = document.getElementById('sync-progress');
    bar.max = st.total || 1;
    bar.value = st.status === 'running' ? st.done : (st.total || 1);
    bar.textContent = st.done + ' of ' + st.total;
    var log = document.getElementById('sync-log');
    var t = new Date().toLocaleTimeString();
    log.appendChild(text('li', t + ' ' + line(st)));
    while (log.children.length > 200) { log.removeChild(log.firstChild); }
    var results = document.getElementById('sync-results');
    results.replaceChildren();
    (st.results || []).forEach(function (c) {
      results.appendChild(text('p', c.name + ': ' + c.scanned + ' scanned, ' + c.added + ' added, ' + c.updated + ' updated, ' +
        c.unchanged + ' unchanged, ' + c.removed + ' removed, ' + c.failed + ' failed'));
      (c.failures || []).forEach(function (f) { results.appendChild(text('p', 'skipped ' + f.path + ': ' + f.reason, 'failure')); });
    });
    return true;
  }

  function poll(after) {
    fetch('/ui/sync/progress?after=' + after, { headers: headers({ Accept: 'application/json' }) })
      .then(function (res) { return res.json(); })
      .then(function (st) {
        if (!show(st)) { return; } // the page changed
        if (st.status === 'running') { setTimeout(function () { poll(st.seq); }, 100); } else { refreshTable(); }
      })
      .catch(function () { setTimeout(function () { poll(after); }, 2000); });
  }

  // refreshTable loads the corpora page again and swaps in its table, so
  // the document counts and sizes follow the sync that just ended.
  function refreshTable() {
    fetch(location.href, { headers: headers({ Accept: 'text/html' }) })
      .then(function (res) { return res.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('corpora-table');
        var table = document.getElementById('corpora-table');
        if (fresh && table) { table.replaceWith(document.adoptNode(fresh)); }
      })
      .catch(function () { /* the counts stay as loaded */ });
  }

  function startSync() {
    var button = document.getElementById('sync-start');
    button.disabled = true;
    fetch('/ui/sync', { method: 'POST', headers: headers({ 'X-Cairn-UI': '1', Accept: 'application/json' }) })
      .then(function (res) { return res.json(); })
      .then(function (st) {
        button.disabled = false;
        if (st.error) { document.getElementById('sync-state').textContent = st.error; return; }
        show(st);
        if (st.status === 'running') { poll(st.seq); }
      })
      .catch(function (err) { button.disabled = false; document.getElementById('sync-state').textContent = 'Could not start a sync: ' + err.message; });
  }

  // followServer refreshes the server's own syncs (first sync, watcher,
  // session sync) every second while one runs and the page shows them.
  function followServer() {
    fetch('/ui/sync/server', { headers: headers({ Accept: 'application/json' }) })
      .then(function (res) { return res.json(); })
      .then(function (st) {
        var box = document.getElementById('server-sync');
        var dl = document.getElementById('server-fields');
        if (!box || !dl) { return; }
        dl.replaceChildren();
        (st.fields || []).forEach(function (f) { dl.appendChild(text('dt', f.key)); dl.appendChild(text('dd', f.value)); });
        box.dataset.running = st.running ? '1' : '0';
        if (st.running) { setTimeout(followServer, 1000); } else { refreshTable(); }
      })
      .catch(function () { setTimeout(followServer, 5000); });
  }

  function init() {
    var form = document.getElementById('token-form');
    if (form && token()) {
      load(location.href, false);
      return;
    }
    if (form) { form.elements.token.focus(); }
    var hint = document.querySelector('#sync-h + p .hint');
    if (hint) { hint.hidden = true; }
    var taskHint = document.getElementById('task-hint');
    if (taskHint) { taskHint.textContent = 'Cairn never edits a source: an action records the decision, and an event time becomes an annotation search reads.'; }
    var button = document.getElementById('sync-start');
    if (button) { button.addEventListener('click', startSync); }
    var again = document.getElementById('recluster');
    if (again) { again.addEventListener('click', recluster); document.getElementById('recluster-hint').hidden = true; }
    var box = document.getElementById('sync');
    if (box && box.dataset.status === 'running') { poll(Number(box.dataset.seq)); }
    var server = document.getElementById('server-sync');
    if (server && server.dataset.running === '1') { setTimeout(followServer, 1000); }
  }

  init();
}());
