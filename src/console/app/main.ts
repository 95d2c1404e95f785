// The operator console in the browser: sign in with an API key (kept in sessionStorage only, never in the
// address), then the pages the key's scopes allow. Plain h() calls keep the repo's tsconfig free of JSX
// settings; every user-controlled string is a text child, which Preact escapes.
import "./base.css";
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, KEY } from "./lib/api";
import { href, usePlace } from "./lib/route";
import type { Me, Page } from "./lib/types";
import { PAGES } from "./pages/index";

function SignIn({ onMe }: { onMe: (me: Me) => void }) {
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const input = (e.currentTarget as HTMLFormElement).elements.namedItem("api-key") as HTMLInputElement;
    sessionStorage.setItem(KEY, input.value.trim());
    try {
      onMe((await api("/v1/me")) as unknown as Me);
    } catch (err) {
      sessionStorage.removeItem(KEY);
      setError((err as Error).message);
    }
  };
  return h("main", { class: "signin-page" }, [
    h("form", { onSubmit: submit, class: "signin", "aria-label": "Sign in" }, [
      h("h1", null, "Switchyard console"),
      h("label", { for: "api-key" }, "API key"),
      h("input", {
        id: "api-key",
        name: "api-key",
        type: "password",
        autocomplete: "off",
        required: true,
        "aria-describedby": error ? "signin-error" : undefined,
      }),
      h("button", { type: "submit" }, "Sign in"),
      error ? h("p", { role: "alert", class: "error", id: "signin-error" }, error) : null,
    ]),
  ]);
}

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(() => sessionStorage.getItem(KEY) !== null);
  const place = usePlace();
  useEffect(() => {
    if (!sessionStorage.getItem(KEY)) return;
    api("/v1/me").then(
      (m) => {
        setMe(m as unknown as Me);
        setChecking(false);
      },
      () => {
        sessionStorage.removeItem(KEY);
        setChecking(false);
      },
    );
  }, []);
  if (checking) return h("p", { "aria-busy": "true", class: "loading" }, "Loading…");
  if (!me) return h(SignIn, { onMe: setMe });
  const current = PAGES.find((p) => p.slug === place.page) ?? PAGES[0]!;
  const allowed = (p: Page) => me.scopes.includes(p.scope);
  // Signing out forgets everything the console kept in this tab (the key, the playground's key).
  const signOut = () => {
    for (const k of Object.keys(sessionStorage)) if (k.startsWith("switchyard.console.")) sessionStorage.removeItem(k);
    setMe(null);
  };
  return h("div", { class: "shell" }, [
    h("a", { href: "#main", class: "skip" }, "Skip to content"),
    h("nav", { "aria-label": "Console" }, [
      h("strong", { class: "brand" }, "Switchyard"),
      h(
        "ul",
        null,
        PAGES.map((p) =>
          h("li", null, [
            allowed(p)
              ? h("a", { href: href(p.slug), "aria-current": p === current ? "page" : undefined }, p.name)
              : h("span", { class: "disabled", "aria-disabled": "true", title: `needs ${p.scope}` }, [
                  p.name,
                  h("small", null, ` needs ${p.scope}`),
                ]),
          ]),
        ),
      ),
      h("span", { class: "who" }, `Signed in as ${me.name}`),
      h("button", { type: "button", onClick: signOut }, "Sign out"),
    ]),
    h(
      "main",
      { id: "main", tabIndex: -1 },
      allowed(current) ? current.view({ me, rest: place.rest }) : h("p", null, `This page needs the ${current.scope} scope.`),
    ),
  ]);
}

render(h(App, null), document.getElementById("app")!);
