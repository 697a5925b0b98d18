// The payout Workflows' classes, as wrangler.toml names them. Each run loads its steps' module on first
// use, so the Worker's entry module stays small and quick to start (docs/operations.md, "Worker size
// and startup"): the monthly run (./payout-run.ts) and one payout's transfer (./payout-send.ts).
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";
import type { Bindings } from "../lib/env";
import type { PayoutRunOutput, PayoutRunParams } from "./payout-run";
import type { PayoutSendParams } from "./payout-send";

export class PayoutRunWorkflow extends WorkflowEntrypoint<Bindings, PayoutRunParams> {
  async run(event: WorkflowEvent<PayoutRunParams>, step: WorkflowStep): Promise<PayoutRunOutput> {
    const { runPayoutRun } = await import("./payout-run");
    return runPayoutRun(this.env, event, step);
  }
}

export class PayoutSendWorkflow extends WorkflowEntrypoint<Bindings, PayoutSendParams> {
  async run(event: WorkflowEvent<PayoutSendParams>, step: WorkflowStep) {
    const { runPayoutSend } = await import("./payout-send");
    return runPayoutSend(this.env, event, step);
  }
}
