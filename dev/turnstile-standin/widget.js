/* The Turnstile stand-in's api.js: window.turnstile with render, reset, getResponse, remove, execute,
   isExpired and ready, behaving as Cloudflare documents its test sitekeys: 1x…AA passes (visible),
   1x…BB passes (invisible), 2x…AB / 2x…BB fail, 3x…FF asks the visitor to click. Every passing widget
   yields the dummy token. Implicit rendering (.cf-turnstile elements) unless ?render=explicit;
   ?onload=name is called once loaded. Real Turnstile draws in an iframe; this one draws in the page
   with element.style only, which a page's style-src does not restrict. */
(() => {
  const TOKEN = "XXXX.DUMMY.TOKEN.XXXX";
  const EXPIRES_MS = 300000;
  /** From the visitor's click on a challenge to its token. */
  const SOLVE_MS = 300;
  const script = document.currentScript;
  const params = new URL(script ? script.src : location.href).searchParams;
  const widgets = {};
  let next = 0;

  function kind(sitekey) {
    if (sitekey === "1x00000000000000000000AA") return { pass: true, visible: true };
    if (sitekey === "1x00000000000000000000BB") return { pass: true, visible: false };
    if (sitekey === "2x00000000000000000000AB") return { pass: false, visible: true };
    if (sitekey === "2x00000000000000000000BB") return { pass: false, visible: false };
    if (sitekey === "3x00000000000000000000FF") return { pass: true, visible: true, interactive: true };
    return null;
  }

  function find(id) {
    if (id === undefined) for (const k in widgets) return widgets[k];
    if (typeof id === "string" && widgets[id]) return widgets[id];
    for (const w in widgets) if (widgets[w].container === id || widgets[w].selector === id) return widgets[w];
    return undefined;
  }

  function call(fn, arg) {
    if (typeof fn === "string") fn = window[fn];
    return typeof fn === "function" ? fn(arg) : undefined;
  }

  function box(w, text) {
    w.box.replaceChildren();
    let visible = w.kind?.visible && (w.options.appearance || "always") === "always";
    if (w.kind?.interactive && w.waiting) visible = true;
    w.box.style.display = visible ? "flex" : "none";
    if (!visible) return;
    const s = w.box.style;
    s.alignItems = "center";
    s.gap = "8px";
    s.width = "300px";
    s.maxWidth = "100%";
    s.height = "65px";
    s.padding = "0 12px";
    s.boxSizing = "border-box";
    s.border = "1px solid #d0d0d0";
    s.borderRadius = "4px";
    s.background = "#fafafa";
    s.font = "14px system-ui, sans-serif";
    s.color = "#232323";
    if (w.waiting) {
      const label = document.createElement("label");
      label.style.display = "flex";
      label.style.alignItems = "center";
      label.style.gap = "8px";
      const tick = document.createElement("input");
      tick.type = "checkbox";
      // As Cloudflare's widget: the click is reported at once, the token in a later task once the
      // challenge's answer is checked.
      tick.addEventListener("change", () => {
        w.waiting = false;
        call(w.options["after-interactive-callback"]);
        box(w, "Verifying…");
        clearTimeout(w.pending);
        w.pending = setTimeout(() => {
          if (widgets[w.id]) solved(w);
        }, SOLVE_MS);
      });
      label.append(tick, document.createTextNode("Verify you are human"));
      w.box.append(label);
    } else w.box.append(document.createTextNode(text));
  }

  function solved(w) {
    w.token = TOKEN;
    w.issued = Date.now();
    if (w.input) w.input.value = TOKEN;
    box(w, "Success!");
    clearTimeout(w.expiry);
    w.expiry = setTimeout(() => {
      w.token = undefined;
      if (w.input) w.input.value = "";
      call(w.options["expired-callback"], TOKEN);
      if ((w.options["refresh-expired"] || "auto") === "auto") run(w);
    }, EXPIRES_MS);
    call(w.options.callback, TOKEN);
  }

  function run(w) {
    w.token = undefined;
    if (w.input) w.input.value = "";
    setTimeout(() => {
      if (!widgets[w.id]) return;
      if (!w.kind) {
        box(w, "");
        if (!call(w.options["error-callback"], "110100") && !w.options["error-callback"])
          throw new Error("[Cloudflare Turnstile] Error: 110100.");
        return;
      }
      if (!w.kind.pass) {
        box(w, "Failed");
        if (!call(w.options["error-callback"], "600010") && !w.options["error-callback"])
          throw new Error("[Cloudflare Turnstile] Error: 600010.");
        return;
      }
      if (w.kind.interactive) {
        w.waiting = true;
        call(w.options["before-interactive-callback"]);
        return box(w, "");
      }
      solved(w);
    }, 30);
    box(w, "Verifying…");
  }

  function render(container, options) {
    const el = typeof container === "string" ? document.querySelector(container) : container;
    if (!el) throw new Error("[Cloudflare Turnstile] Error: container not found.");
    options = options || {};
    const id = `cf-chl-widget-${++next}`;
    const w = { id: id, container: el, selector: container, options: options, kind: kind(options.sitekey) };
    w.box = document.createElement("div");
    w.box.id = id;
    w.box.dataset.turnstileStandin = options.sitekey || "";
    el.append(w.box);
    if (options["response-field"] !== false) {
      w.input = document.createElement("input");
      w.input.type = "hidden";
      w.input.name = options["response-field-name"] || "cf-turnstile-response";
      el.append(w.input);
    }
    widgets[id] = w;
    if ((options.execution || "render") === "render") run(w);
    else box(w, "");
    return id;
  }

  function fromData(el) {
    const options = {};
    for (const key in el.dataset) options[key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)] = el.dataset[key];
    return options;
  }

  window.turnstile = {
    render: render,
    execute: (id) => {
      const w = find(id);
      if (w) run(w);
    },
    reset: (id) => {
      const w = find(id);
      if (w) {
        clearTimeout(w.expiry);
        clearTimeout(w.pending);
        w.waiting = false;
        run(w);
      }
    },
    remove: (id) => {
      const w = find(id);
      if (!w) return;
      clearTimeout(w.expiry);
      clearTimeout(w.pending);
      w.box.remove();
      if (w.input) w.input.remove();
      delete widgets[w.id];
    },
    getResponse: (id) => {
      const w = find(id);
      return w ? w.token : undefined;
    },
    isExpired: (id) => {
      const w = find(id);
      return !!w && !w.token && !!w.issued && Date.now() - w.issued >= EXPIRES_MS;
    },
    ready: (fn) => fn(),
  };

  if (params.get("render") !== "explicit") {
    const implicit = () =>
      document.querySelectorAll(".cf-turnstile").forEach((el) => {
        if (!el.dataset.turnstileRendered) {
          el.dataset.turnstileRendered = "true";
          render(el, fromData(el));
        }
      });
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", implicit);
    else implicit();
  }
  if (params.get("onload")) call(params.get("onload"));
})();
