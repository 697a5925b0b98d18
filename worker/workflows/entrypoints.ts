// The payout Workflows' classes, as wrangler.toml names them: the monthly run (./payout-run.ts) and one
// payout's transfer (./payout-send.ts). Their steps' modules are imported up front, not on first use:
// docs/operations.md, "Worker size and startup", says why.
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";
import type { Bindings } from "../lib/env";
import { type PayoutRunOutput, type PayoutRunParams, runPayoutRun } from "./payout-run";
import { type PayoutSendParams, runPayoutSend } from "./payout-send";

export class PayoutRunWorkflow extends WorkflowEntrypoint<Bindings, PayoutRunParams> {
  async run(event: WorkflowEvent<PayoutRunParams>, step: WorkflowStep): Promise<PayoutRunOutput> {
    return runPayoutRun(this.env, event, step);
  }
}

export class PayoutSendWorkflow extends WorkflowEntrypoint<Bindings, PayoutSendParams> {
  async run(event: WorkflowEvent<PayoutSendParams>, step: WorkflowStep) {
    return runPayoutSend(this.env, event, step);
  }
}
