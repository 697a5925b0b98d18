import { Link } from "@tanstack/react-router";
import { PRODUCT_NAME } from "@shared/site";

export function LogoMark({ className = "size-8" }: { className?: string }) {
  return <img src="/favicon.svg" alt="" className={className} />;
}

export function Logo() {
  return (
    <Link to="/" className="flex shrink-0 items-center gap-2 font-bold text-lg tracking-tight">
      <LogoMark />
      <span>{PRODUCT_NAME}</span>
    </Link>
  );
}
