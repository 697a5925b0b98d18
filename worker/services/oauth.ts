// Google and GitHub sign-in through arctic. A provider exists only when its id and secret are set.
import { decodeIdToken, GitHub, Google } from "arctic";
import type { Bindings } from "../lib/env";

type OAuthIdentity = {
  providerUserId: string;
  email: string;
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
};

type Provider = {
  /** `verifier` is the PKCE code verifier (Google); GitHub ignores it. */
  authorizationUrl(state: string, verifier: string): URL;
  identify(code: string, verifier: string): Promise<OAuthIdentity>;
};

export const configuredProviders = (env: Bindings) => ({
  google: !!(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET),
  github: !!(env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET),
});

export function oauthProvider(env: Bindings, name: string, appUrl: string): Provider | null {
  const redirect = new URL(`/api/auth/oauth/${name}/callback`, appUrl).toString();
  if (name === "google" && env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET) {
    const google = new Google(env.GOOGLE_CLIENT_ID, env.GOOGLE_CLIENT_SECRET, redirect);
    return {
      authorizationUrl: (state, verifier) =>
        google.createAuthorizationURL(state, verifier, ["openid", "email", "profile"]),
      async identify(code, verifier) {
        const tokens = await google.validateAuthorizationCode(code, verifier);
        // The ID token came straight from Google's token endpoint over TLS, so its claims are trusted as is.
        const claims = decodeIdToken(tokens.idToken()) as Record<string, unknown>;
        return {
          providerUserId: String(claims.sub),
          email: String(claims.email ?? ""),
          emailVerified: claims.email_verified === true,
          firstName: typeof claims.given_name === "string" ? claims.given_name : null,
          lastName: typeof claims.family_name === "string" ? claims.family_name : null,
        };
      },
    };
  }
  if (name === "github" && env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET) {
    const github = new GitHub(env.GITHUB_CLIENT_ID, env.GITHUB_CLIENT_SECRET, redirect);
    return {
      authorizationUrl: (state) => github.createAuthorizationURL(state, ["read:user", "user:email"]),
      async identify(code) {
        const tokens = await github.validateAuthorizationCode(code);
        const headers = {
          authorization: `Bearer ${tokens.accessToken()}`,
          "user-agent": "ApeWall",
          accept: "application/vnd.github+json",
        };
        const userRes = await fetch("https://api.github.com/user", { headers });
        if (!userRes.ok) throw new Error(`GitHub user lookup answered ${userRes.status}`);
        const user = (await userRes.json()) as { id: number; name?: string | null; login: string };
        const emailsRes = await fetch("https://api.github.com/user/emails", { headers });
        if (!emailsRes.ok) throw new Error(`GitHub email lookup answered ${emailsRes.status}`);
        const emails = (await emailsRes.json()) as { email: string; primary: boolean; verified: boolean }[];
        const primary = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified);
        const [firstName, ...rest] = (user.name ?? user.login).split(" ");
        return {
          providerUserId: String(user.id),
          email: primary?.email ?? "",
          emailVerified: !!primary,
          firstName: firstName || null,
          lastName: rest.join(" ") || null,
        };
      },
    };
  }
  return null;
}
