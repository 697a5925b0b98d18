/* The ApeWall Stripe stand-in's Stripe.js: a window.Stripe with the calls the app uses
   (elements, element.mount, confirmPayment, confirmCardPayment, createConfirmationToken,
   handleNextAction, retrievePaymentIntent). It talks to the stand-in API, so the app's code path is unchanged.
   The Payment Element's billing Country and postal code are drawn by stripe-js-billing.js. */
(() => {
  var BASE = "__STANDIN_BASE__";
  // The Payment Element's Country and postal code (stripe-js-billing.js, served just before this file).
  var billing = window.__stripeStandinBilling;

  function encode(obj, prefix, out) {
    out = out || new URLSearchParams();
    Object.keys(obj).forEach((k) => {
      var v = obj[k];
      if (v === undefined || v === null) return;
      var key = prefix ? `${prefix}[${k}]` : k;
      if (typeof v === "object") encode(v, key, out);
      else out.append(key, String(v));
    });
    return out;
  }

  // Real Stripe.js draws its fields in iframes, so a page's Content-Security-Policy needs no style-src
  // for it (Stripe's CSP guide: script-src, frame-src, connect-src). This stand-in draws in the page,
  // so it sets styles through the DOM, which a policy does not restrict, not as style attributes,
  // which a strict policy blocks.
  function setHtml(target, markup) {
    target.innerHTML = markup.replace(/ style="/g, ' data-standin-style="');
    target.querySelectorAll("[data-standin-style]").forEach((n) => {
      n.style.cssText = n.getAttribute("data-standin-style");
      n.removeAttribute("data-standin-style");
    });
  }

  function api(pk, method, path, params) {
    var body = params ? encode(params).toString() : undefined;
    var url = BASE + path + (method === "GET" && body ? `?${body}` : "");
    return fetch(url, {
      method: method,
      headers: { authorization: `Bearer ${pk}`, "content-type": "application/x-www-form-urlencoded" },
      body: method === "GET" ? undefined : body,
    }).then((res) => res.json().then((json) => ({ ok: res.ok, json: json })));
  }

  var piIdOf = (clientSecret) => String(clientSecret).split("_secret_")[0];

  function field(id, label, placeholder, attrs) {
    return (
      '<label for="' +
      id +
      '" style="display:block;font-size:13px;font-weight:500;margin:0 0 4px;color:#374151">' +
      label +
      "</label>" +
      '<input id="' +
      id +
      '" placeholder="' +
      placeholder +
      '" ' +
      attrs +
      ' style="width:100%;box-sizing:border-box;height:40px;border:1px solid #d1d5db;border-radius:8px;padding:0 12px;font-size:15px;font-family:inherit;background:#fff" />'
    );
  }

  // element.on / element.off (docs.stripe.com/js/element/events), for every element kind here.
  function withEvents(el, handlers) {
    el.on = (name, handler) => {
      if (!handlers[name]) handlers[name] = [];
      handlers[name].push(handler);
      return el;
    };
    el.off = (name, handler) => {
      handlers[name] = (handlers[name] || []).filter((h) => h !== handler);
      return el;
    };
    return el;
  }

  function createCardElement(type, elements, opts) {
    var handlers = {};
    var root = null;
    var uid = `sci-${Math.random().toString(36).slice(2, 8)}`;
    var el = {
      _type: type,
      mount: (target) => {
        root = typeof target === "string" ? document.querySelector(target) : target;
        if (!root) throw new Error("Stripe stand-in: mount target not found");
        setHtml(
          root,
          '<div data-stripe-standin="' +
            type +
            '" style="display:grid;gap:12px;font-family:inherit">' +
            field(
              `${uid}-number`,
              "Card number",
              "1234 1234 1234 1234",
              'inputmode="numeric" autocomplete="cc-number"',
            ) +
            '<div style="display:grid;grid-template-columns:1fr 1fr;gap:12px"><div>' +
            field(`${uid}-exp`, "Expiration date", "MM / YY", 'inputmode="numeric" autocomplete="cc-exp"') +
            "</div><div>" +
            field(`${uid}-cvc`, "Security code", "CVC", 'inputmode="numeric" autocomplete="cc-csc"') +
            "</div></div>" +
            (type === "payment" ? billing.markup(uid, opts) : "") +
            '<p style="margin:0;font-size:12px;color:#6b7280">Test mode: use 4242 4242 4242 4242, any future date and any CVC.</p></div>',
        );
        billing.sync(root, uid);
        ["number", "exp", "cvc", "country", "postal"].forEach((f) => {
          var input = root.querySelector(`#${uid}-${f}`);
          if (!input) return;
          input.addEventListener(f === "country" ? "change" : "input", () => {
            if (f === "country") billing.sync(root, uid);
            var v = el._values();
            (handlers.change || []).forEach((h) => {
              h({
                elementType: type,
                empty: !v.number && !v.exp && !v.cvc,
                complete:
                  v.number.length >= 12 && /\d{1,2}\s*\/\s*\d{2,4}/.test(v.exp) && v.cvc.length >= 3 && !el._problem(),
              });
            });
          });
        });
        setTimeout(() => {
          (handlers.ready || []).forEach((h) => {
            h({ elementType: type });
          });
        });
      },
      unmount: () => {
        if (root) root.innerHTML = "";
      },
      destroy: () => {
        el.unmount();
      },
      update: () => {},
      focus: () => {
        root?.querySelector("input")?.focus();
      },

      _values: () => {
        var get = (f) => {
          var input = root?.querySelector(`#${uid}-${f}`);
          return input ? input.value.trim() : "";
        };
        return { number: get("number").replace(/\s/g, ""), exp: get("exp"), cvc: get("cvc") };
      },
      _card: () => {
        var v = el._values();
        var m = /^(\d{1,2})\s*\/?\s*(\d{2,4})$/.exec(v.exp.replace(/\s/g, ""));
        return { number: v.number, exp_month: m ? m[1] : "", exp_year: m ? m[2] : "", cvc: v.cvc };
      },
      // The billing details the element collected (null when it shows no billing fields), and what is missing.
      _billing: () => billing.values(root, uid),
      _problem: () => billing.problem(root, uid),
    };
    elements._all.push(withEvents(el, handlers));
    return el;
  }

  // The Express Checkout Element (docs.stripe.com/js/elements_object/create_express_checkout_element,
  // and its ready, click and confirm events): real Stripe.js shows Apple Pay, Google Pay or Link as
  // the browser allows. This stand-in offers Link only: `ready` reports
  // availablePaymentMethods { link: true, applePay: false, googlePay: false }; a click fires `click`
  // with resolve(), then `confirm` with the wallet's billing details; the page then calls
  // stripe.confirmPayment({ elements, clientSecret, confirmParams }), which confirms with a Link
  // PaymentMethod (payment_method_data[type]=link), as Stripe.js does for Link: it pays with the Link
  // account's saved card, so the charge's payment_method_details.type is "link".
  function createExpressCheckoutElement(elements) {
    var handlers = {};
    var root = null;
    var emit = (name, event) => {
      (handlers[name] || []).forEach((h) => {
        h(event);
      });
    };
    var el = {
      _type: "expressCheckout",
      mount: (target) => {
        root = typeof target === "string" ? document.querySelector(target) : target;
        if (!root) throw new Error("Stripe stand-in: mount target not found");
        setHtml(
          root,
          '<button type="button" data-stripe-standin="expressCheckout" aria-label="Pay with Link" style="width:100%;height:44px;border:0;border-radius:8px;background:#00d66f;color:#011e0f;font-weight:700;font-size:15px;cursor:pointer;font-family:inherit">Pay with link</button>',
        );
        root.querySelector("button").addEventListener("click", () => {
          var resolved = null;
          emit("click", {
            elementType: "expressCheckout",
            expressPaymentType: "link",
            resolve: (options) => {
              resolved = options || {};
            },
            reject: () => {},
          });
          if (!resolved) return;
          // The wallet sheet: the buyer approves with their saved card.
          setTimeout(() => {
            elements._express = { type: "link", email: resolved.emailRequired ? "link-buyer@example.com" : null };
            emit("confirm", {
              elementType: "expressCheckout",
              expressPaymentType: "link",
              billingDetails: {
                name: "Link Buyer",
                email: resolved.emailRequired ? "link-buyer@example.com" : null,
                phone: null,
                address: null,
              },
              paymentFailed: () => {
                elements._express = null;
              },
            });
          }, 50);
        });
        setTimeout(() => {
          emit("ready", {
            elementType: "expressCheckout",
            availablePaymentMethods: {
              link: true,
              applePay: false,
              googlePay: false,
              paypal: false,
              amazonPay: false,
              klarna: false,
            },
          });
          emit("availablepaymentmethodschange", {
            elementType: "expressCheckout",
            paymentMethods: { link: true, applePay: false, googlePay: false },
          });
        });
      },
      unmount: () => {
        if (root) root.innerHTML = "";
      },
      destroy: () => {
        el.unmount();
      },
      update: () => {},
    };
    elements._all.push(withEvents(el, handlers));
    return el;
  }

  function authModal() {
    return new Promise((resolve) => {
      var overlay = document.createElement("div");
      overlay.setAttribute("role", "dialog");
      overlay.setAttribute("aria-label", "Authenticate test payment");
      overlay.style.cssText =
        "position:fixed;inset:0;background:rgba(15,23,42,.6);display:flex;align-items:center;justify-content:center;z-index:2147483647;font-family:system-ui,sans-serif";
      setHtml(
        overlay,
        '<div style="background:#fff;border-radius:12px;padding:24px;max-width:360px;width:90%;box-shadow:0 20px 40px rgba(0,0,0,.25)">' +
          '<h2 style="margin:0 0 8px;font-size:18px">Authenticate test payment</h2>' +
          '<p style="margin:0 0 20px;color:#4b5563;font-size:14px">Your bank asks you to confirm this payment (3D Secure test).</p>' +
          '<div style="display:flex;gap:8px;justify-content:flex-end">' +
          '<button type="button" data-outcome="fail" style="padding:8px 14px;border:1px solid #d1d5db;border-radius:8px;background:#fff;cursor:pointer">Fail authentication</button>' +
          '<button type="button" data-outcome="complete" style="padding:8px 14px;border:0;border-radius:8px;background:#635bff;color:#fff;cursor:pointer">Complete authentication</button>' +
          "</div></div>",
      );
      overlay.addEventListener("click", (e) => {
        var outcome = e.target?.getAttribute?.("data-outcome");
        if (!outcome) return;
        overlay.remove();
        resolve(outcome);
      });
      document.body.appendChild(overlay);
    });
  }

  function errorOf(json) {
    var e = json.error || {};
    return {
      type: e.type || "api_error",
      code: e.code,
      decline_code: e.decline_code,
      message: e.message || "Something went wrong.",
      payment_intent: e.payment_intent,
    };
  }

  window.Stripe = function Stripe(publishableKey) {
    if (publishableKey?.indexOf("pk_test_") !== 0)
      throw new Error("Stripe stand-in: a pk_test_ publishable key is required");

    function settle(pi) {
      if (pi.status !== "requires_action") return Promise.resolve(pi);
      return authModal().then((outcome) =>
        api(publishableKey, "POST", `/_standin/payment_intents/${pi.id}/authenticate`, {
          client_secret: pi.client_secret,
          outcome: outcome,
        }).then((r) => r.json),
      );
    }

    function confirmWith(clientSecret, el, extra) {
      var problem = el._problem?.();
      if (problem) return Promise.resolve({ error: problem });
      var params = Object.assign(
        {
          client_secret: clientSecret,
          payment_method_data: { type: "card", card: el._card(), billing_details: el._billing?.() || undefined },
        },
        extra || {},
      );
      return api(publishableKey, "POST", `/v1/payment_intents/${piIdOf(clientSecret)}/confirm`, params).then((r) => {
        if (!r.ok) return { error: errorOf(r.json) };
        return settle(r.json).then((pi) => {
          if (pi.error) return { error: errorOf(pi) };
          if (pi.status === "succeeded" || pi.status === "processing") return { paymentIntent: pi };
          return {
            error: Object.assign({ type: "card_error" }, pi.last_payment_error || { message: "Payment failed." }),
          };
        });
      });
    }

    return {
      elements: (options) => {
        var elements = { _all: [], _options: options || {} };
        elements.create = (type, opts) => {
          if (type === "expressCheckout") return createExpressCheckoutElement(elements, opts);
          return createCardElement(type, elements, opts);
        };
        elements.getElement = (type) => elements._all.find((e) => e._type === type) || null;
        elements.submit = () => {
          if (elements._express) return Promise.resolve({});
          var el = elements._all.find((e) => e._type !== "expressCheckout");
          var c = el?._card();
          if (!c?.number)
            return Promise.resolve({ error: { type: "validation_error", message: "Your card number is incomplete." } });
          var problem = el._problem?.();
          return Promise.resolve(problem ? { error: problem } : {});
        };
        elements.update = (opts) => {
          Object.assign(elements._options, opts);
        };
        elements.fetchUpdates = () => Promise.resolve({});
        return elements;
      },
      confirmPayment: (options) => {
        var elements = options.elements;
        var clientSecret = options.clientSecret || elements?._options.clientSecret;
        var cp = options.confirmParams || {};
        var express = elements?._express;
        var el = elements?._all.find((e) => e._type !== "expressCheckout");
        if (!el && !express)
          return Promise.resolve({ error: { type: "validation_error", message: "No payment element is mounted." } });
        var confirming = express
          ? api(publishableKey, "POST", `/v1/payment_intents/${piIdOf(clientSecret)}/confirm`, {
              client_secret: clientSecret,
              payment_method_data: { type: "link", billing_details: { email: express.email } },
              receipt_email: cp.receipt_email,
              return_url: cp.return_url,
            }).then((r) => {
              elements._express = null;
              if (!r.ok) return { error: errorOf(r.json) };
              return settle(r.json).then((pi) =>
                pi.status === "succeeded" || pi.status === "processing"
                  ? { paymentIntent: pi }
                  : { error: errorOf({ error: pi.last_payment_error }) },
              );
            })
          : confirmWith(clientSecret, el, { receipt_email: cp.receipt_email, return_url: cp.return_url });
        return confirming.then((result) => {
          if (result.error || options.redirect === "if_required") return result;
          var pi = result.paymentIntent;
          var url = new URL(cp.return_url, window.location.href);
          url.searchParams.set("payment_intent", pi.id);
          url.searchParams.set("payment_intent_client_secret", pi.client_secret);
          url.searchParams.set("redirect_status", pi.status);
          window.location.assign(url.toString());
          return new Promise(() => {});
        });
      },
      confirmCardPayment: (clientSecret, data) => {
        data = data || {};
        var pm = data.payment_method || {};
        if (typeof pm === "string") {
          return api(publishableKey, "POST", `/v1/payment_intents/${piIdOf(clientSecret)}/confirm`, {
            client_secret: clientSecret,
            payment_method: pm,
            receipt_email: data.receipt_email,
          }).then((r) => {
            if (!r.ok) return { error: errorOf(r.json) };
            return settle(r.json).then((pi) =>
              pi.status === "succeeded" ? { paymentIntent: pi } : { error: errorOf({ error: pi.last_payment_error }) },
            );
          });
        }
        return confirmWith(clientSecret, pm.card, { receipt_email: data.receipt_email });
      },
      // docs.stripe.com/js/confirmation_tokens/create_confirmation_token: the Payment Element's card (or
      // the wallet the Express Checkout Element just approved) as a ConfirmationToken the server reads
      // and confirms with; params.payment_method_data is merged in, params.return_url and shipping kept.
      createConfirmationToken: (options) => {
        var elements = options?.elements;
        var params = options?.params || {};
        var extra = params.payment_method_data || {};
        var express = elements?._express;
        var el = elements?._all.find((e) => e._type !== "expressCheckout");
        if (!express && !el)
          return Promise.resolve({ error: { type: "validation_error", message: "No payment element is mounted." } });
        var data;
        var card;
        var problem;
        if (express) {
          data = {
            type: "link",
            billing_details: Object.assign({ email: express.email }, extra.billing_details || {}),
          };
        } else {
          card = el._card();
          if (!card.number)
            return Promise.resolve({ error: { type: "validation_error", message: "Your card number is incomplete." } });
          problem = el._problem?.();
          if (problem) return Promise.resolve({ error: problem });
          data = { type: "card", card: card, billing_details: billing.merge(el._billing?.(), extra.billing_details) };
        }
        return api(publishableKey, "POST", "/v1/confirmation_tokens", {
          payment_method_data: data,
          return_url: params.return_url,
          shipping: params.shipping,
        }).then((r) => {
          if (express) elements._express = null;
          return r.ok ? { confirmationToken: r.json } : { error: errorOf(r.json) };
        });
      },
      // docs.stripe.com/js/payment_intents/handle_next_action: finishes a PaymentIntent the server
      // confirmed that waits in requires_action (the 3-D Secure screen), else answers an error.
      handleNextAction: (options) =>
        api(publishableKey, "GET", `/v1/payment_intents/${piIdOf(options.clientSecret)}`, {
          client_secret: options.clientSecret,
        }).then((r) => {
          if (!r.ok) return { error: errorOf(r.json) };
          if (r.json.status !== "requires_action")
            return {
              error: {
                type: "invalid_request_error",
                code: "payment_intent_unexpected_state",
                message: `handleNextAction: the PaymentIntent has a status of ${r.json.status}, not requires_action.`,
              },
            };
          return settle(r.json).then((pi) =>
            pi.status === "succeeded" || pi.status === "processing"
              ? { paymentIntent: pi }
              : { error: errorOf({ error: pi.last_payment_error }) },
          );
        }),
      retrievePaymentIntent: (clientSecret) =>
        api(publishableKey, "GET", `/v1/payment_intents/${piIdOf(clientSecret)}`, {
          client_secret: clientSecret,
        }).then((r) => (r.ok ? { paymentIntent: r.json } : { error: errorOf(r.json) })),
    };
  };
  window.Stripe.version = 3;
  window.Stripe.__standin = true;
})();
