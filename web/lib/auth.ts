import { useQuery } from "@tanstack/react-query";
import { api, apiKey } from "./api";

/**
 * The sign-in state: loading, then a user or null. GET /api/auth/me answers 200 with a null user when
 * signed out, so a signed-out page logs no failed request. `firstSignIn`: the server says this
 * session's sign-in created the account.
 */
export function useAuth() {
  const { data, isLoading, error } = useQuery({
    queryKey: apiKey("GET /api/auth/me"),
    queryFn: ({ signal }) => api("GET /api/auth/me", { signal }),
  });
  const user = data?.user ?? null;
  return { user, isLoading, isAuthenticated: !!user, firstSignIn: !!data?.firstSignIn, error };
}

export { goToLogin } from "./login";
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
