import { useQuery } from "@tanstack/react-query";
import { api, apiKey, nullOn401 } from "./api";

/** The sign-in state: loading, then a user or null (a 401 here means signed out, not an error). */
export function useAuth() {
  const { data, isLoading, error } = useQuery({
    queryKey: apiKey("GET /api/auth/user"),
    queryFn: ({ signal }) => api("GET /api/auth/user", { signal }).catch(nullOn401),
  });
  return { user: data ?? null, isLoading, isAuthenticated: !!data, error };
}

export const goToLogin = () => window.location.assign("/api/login");
/**
 * The browser goes to /api/logout (spec §2) as a form POST: a GET could be any link or image elsewhere
 * signing the visitor out. The answer (303) brings it home.
 */
export function goToLogout() {
  const form = document.createElement("form");
  form.method = "post";
  form.action = "/api/logout";
  document.body.appendChild(form);
  form.submit();
}
