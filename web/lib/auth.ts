import { useQuery } from "@tanstack/react-query";
import type { CurrentUser } from "@shared/schemas";
import { getQueryFn } from "./api";
import { queryKeys } from "./query-keys";

/** The sign-in state: loading, then a user or null (a 401 here means signed out, not an error). */
export function useAuth() {
  const { data, isLoading, error } = useQuery<CurrentUser | null>({
    queryKey: queryKeys.authUser,
    queryFn: getQueryFn({ on401: "returnNull" }),
  });
  return { user: data ?? null, isLoading, isAuthenticated: !!data, error };
}

export const goToLogin = () => window.location.assign("/api/login");
/** Signing out is a POST (a link could otherwise sign anyone out); then home, signed out or not. */
export async function goToLogout() {
  try {
    await fetch("/api/logout", { method: "POST", credentials: "include" });
  } finally {
    window.location.assign("/");
  }
}
