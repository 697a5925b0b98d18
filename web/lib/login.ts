// The way to sign-in every page takes (spec §2: /api/login), in a module of its own so the public
// pages' islands (web/site/) use it without the app's data layer.
export const goToLogin = () => window.location.assign("/api/login");
