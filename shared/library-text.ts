// The buyer's library's texts, printed by the Worker's page (worker/pages/library.tsx) and its island
// (web/site/library.ts), and the hooks the island finds in the page. Zod-free: the island imports it.
// Behaviour: docs/library.md.

/** How long an emailed library link works. */
export const LIBRARY_LINK_MINUTES = 15;

export const LIBRARY_TEXT = {
  /** The one answer to "Email me a sign-in link", whatever the address (no enumeration). */
  linkSent: `If this address paid for anything here, a sign-in link is on its way; it works once, for ${LIBRARY_LINK_MINUTES} minutes. Nothing in a minute? Check spam, or try the address you paid with.`,
  linkInvalid: "This sign-in link has expired or was already used.",
  signedOut: "Sign in to your library to see it.",
  empty: "No purchases with this email yet",
  emptyHint:
    "Bought with another address? Sign out and sign in with that one. A payment still processing appears here once it is confirmed.",
} as const;

/** The page's other words, as the app's library page said them. */
export const LIBRARY_PAGE_TEXT = {
  title: "Your library",
  intro:
    "Everything you bought on ApeWall, from every creator, in one place. Enter the email you paid with and we'll send you a sign-in link.",
  emailLabel: "The email you paid with",
  requestLink: "Email me a sign-in link",
  requestNewLink: "Email me a new link",
  useAnother: "Use another address",
  sessionEnded: "Your library session ended. Sign in again.",
  openTitle: "Open your library",
  openText: "You're one click away from everything you bought with your email.",
  open: "Open my library",
  invalidText: `Links work once, for ${LIBRARY_LINK_MINUTES} minutes. Get a new one: it takes a moment.`,
  noScript: "Sign-in links open with JavaScript on (the button on the emailed link's page).",
  signOut: "Sign out",
  signOutFailed: "Couldn't sign out.",
  showMore: "Show more",
  moreFailed: "Couldn't load more purchases.",
  newest: "Back to your newest purchases",
  openAccess: "Open access page",
  receipt: "Receipt",
  copyAccess: "Copy access link",
  changeEmail: "Change email",
  changeEmailTitle: "Change this purchase's email",
  newEmail: "New email",
  invalidEmail: "Please enter a valid email address.",
  changeNeedsScript: "Changing the email needs JavaScript (it runs the bot check).",
} as const;

/** The toasts the island shows. */
export const LIBRARY_TOAST = {
  emailChanged: (address: string) => ({
    title: "Email changed",
    description: `The receipt went to ${address}, and this order is now in that address's library. We told your old address.`,
  }),
  nothingToChange: (address: string) => ({
    title: "Nothing to change",
    description: `This order's email is already ${address}.`,
  }),
  copied: (what: string) => ({ title: "Copied", description: `${what} copied to the clipboard.` }),
  copyFailed: { title: "Copy failed", description: "Select it and copy it by hand." },
  downloadStarted: { title: "Download Started", description: "Your file is being downloaded." },
  downloadFailed: { title: "Download Failed", description: "There was an error downloading your file." },
  loadFailed: { title: "Couldn't open this purchase", description: "Check your connection and try again." },
} as const;

/** `data-part` names the island finds in the Worker's HTML. */
export const LIBRARY_PART = {
  signIn: "library-sign-in",
  signedIn: "library-signed-in",
  open: "library-open",
  invalid: "library-invalid",
  linkForm: "library-link-form",
  linkSent: "library-link-sent",
  signOut: "library-sign-out",
  signOutFailed: "library-sign-out-failed",
  list: "library-list",
  more: "library-more",
  empty: "library-empty",
  access: "library-access",
  kit: "library-kit",
  toasts: "library-toasts",
  changeEmail: "library-change-email",
  copy: "library-copy",
} as const;

/** `/library?ended=1`: the page the island returns to when the session ended under it. */
export const LIBRARY_ENDED_PARAM = "ended";
