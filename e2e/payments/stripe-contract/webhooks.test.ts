// The Stripe contract for webhooks: the stand-in's deliveries carry a Stripe-Signature the SDK accepts,
// and each endpoint gets only its kind of event, signed with its own secret.
// Only the local stand-in plays these (its own instances, started here); real Stripe needs none of them.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { createStandin } from "../../../dev/stripe-standin/server.mjs";

describe("webhooks sent by the stand-in", () => {
  it("carry a Stripe-Signature that the SDK's own checker accepts", async () => {
    const received: { body: string; signature: string }[] = [];
    const sink = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      received.push({ body, signature: String(req.headers["stripe-signature"]) });
      res.end("ok");
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", () => r()));
    const standin = createStandin({
      webhookUrls: [`http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`],
      webhookSecret: "whsec_contract",
    });
    const url = new URL(await standin.listen(0));
    const stripe = new Stripe("sk_test_contract", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const intent = await stripe.paymentIntents.create({ amount: 700, currency: "usd" });
    await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
    await standin.flushWebhooks();
    const types = [];
    for (const { body, signature } of received) {
      const event = await Stripe.webhooks.constructEventAsync(body, signature, "whsec_contract");
      types.push(event.type);
      await expect(Stripe.webhooks.constructEventAsync(body, signature, "whsec_other")).rejects.toThrow();
    }
    expect(types).toEqual(
      expect.arrayContaining(["payment_intent.created", "charge.succeeded", "payment_intent.succeeded"]),
    );
    await standin.close();
    sink.close();
  });
});

describe("webhook endpoints of the stand-in", () => {
  it("each endpoint gets only its kind of event (its account's, or connected accounts'), every delivery signed with its own secret, retries included", async () => {
    // Two endpoints, as docs/operations.md sets up for the app: "Your account" and "Connected accounts".
    const got: Record<string, { body: string; signature: string }[]> = { platform: [], connect: [] };
    const tries = new Map<string, number>();
    const sink = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      const which = req.url === "/connect" ? "connect" : "platform";
      got[which].push({ body, signature: String(req.headers["stripe-signature"]) });
      // Every fifth event is refused once, so its retry is checked too.
      const id = (JSON.parse(body) as { id: string }).id;
      const n = (tries.get(`${which}:${id}`) ?? 0) + 1;
      tries.set(`${which}:${id}`, n);
      res.statusCode = n === 1 && tries.size % 5 === 0 ? 500 : 200;
      res.end();
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", () => r()));
    const hook = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
    const standin = createStandin({
      webhookUrls: [`${hook}/platform`],
      connectWebhookUrls: [`${hook}/connect`],
      webhookSecret: "whsec_platform",
      connectWebhookSecret: "whsec_connected",
    });
    const url = new URL(await standin.listen(0));
    const stripe = new Stripe("sk_test_sigs", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const control = (path: string, body: Record<string, string> = {}) =>
      fetch(`${url.origin}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer sk_test_sigs", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(body),
      }).then((r) => r.json() as Promise<{ id: string }>);
    for (let i = 0; i < 4; i++) {
      const customer = await stripe.customers.create({ email: `sigs-${i}@example.com`, name: "Zoë ✓ 😀" });
      const paid = await stripe.paymentIntents.create({
        amount: 1000 + i,
        currency: "usd",
        customer: customer.id,
        description: "Café – naïve 😀",
        payment_method: "pm_card_visa",
        confirm: true,
      });
      await stripe.refunds.create({ payment_intent: paid.id, amount: 100 });
      await control(`/_standin/charges/${paid.latest_charge}/dispute`);
      const account = await stripe.accounts.create({
        type: "express",
        email: `sigs-${i}@example.com`,
        capabilities: { transfers: { requested: true } },
      });
      await control(`/_standin/accounts/${account.id}/onboard`);
      await control(`/_standin/accounts/${account.id}/restrict`);
      await control("/_standin/balance/top_up", { amount: "100000" });
      const transfer = await stripe.transfers.create({
        amount: 500,
        currency: "usd",
        destination: (
          await control(
            `/_standin/accounts/${(await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } })).id}/onboard`,
          )
        ).id,
      });
      await stripe.transfers.createReversal(transfer.id, { amount: 100 });
    }
    await standin.flushWebhooks();
    const problems: string[] = [];
    for (const [which, secret, other] of [
      ["platform", "whsec_platform", "whsec_connected"],
      ["connect", "whsec_connected", "whsec_platform"],
    ] as const) {
      for (const { body, signature } of got[which]) {
        const event = await Stripe.webhooks.constructEventAsync(body, signature, secret).catch(() => null);
        if (!event)
          problems.push(
            `${which}: ${(JSON.parse(body) as { type: string }).type} not signed with this endpoint's secret`,
          );
        else if ((which === "connect") !== !!event.account)
          problems.push(`${which}: ${event.type} (account ${event.account ?? "none"}) sent to the wrong endpoint`);
        if (
          await Stripe.webhooks.constructEventAsync(body, signature, other).then(
            () => true,
            () => false,
          )
        )
          problems.push(`${which}: also valid under the other secret`);
      }
    }
    expect(problems).toEqual([]);
    expect(got.platform.length).toBeGreaterThan(40);
    expect(got.connect.length).toBeGreaterThan(8);
    await standin.close();
    sink.close();
  });
});
