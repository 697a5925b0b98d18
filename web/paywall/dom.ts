// Small DOM helpers of the paywall's checkout (no framework: this code ships in the paywall's own bundle).
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className = "", text = "") => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};
