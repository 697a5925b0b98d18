import { useEffect } from "react";
import { RELOGIN_DELAY_MS } from "@shared/auth";
import { toast } from "@/hooks/use-toast";
import { goToLogin } from "@/lib/auth";
import { isUnauthorizedError } from "@/lib/api";

/** Spec §4/§8: a lost session shows 'Unauthorized' and goes to /api/login after 500 ms. */
export function showUnauthorizedAndRelogin() {
  toast({ title: "Unauthorized", description: "You are logged out. Logging in again...", variant: "destructive" });
  setTimeout(goToLogin, RELOGIN_DELAY_MS);
}

export function useUnauthorizedRedirect(error: unknown) {
  useEffect(() => {
    if (isUnauthorizedError(error)) showUnauthorizedAndRelogin();
  }, [error]);
}
