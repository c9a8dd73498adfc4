// Server rendering (Next.js, Remix): the package imports and renders with no window or
// document; effects (fetching, streams) wait for the browser.
import { createElement as h, type ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ToolnexusProvider } from "./config.js";
import { SchemaForm } from "./schema-form.js";
import { renderForm } from "./testing/render-form.js";
import { useRequests } from "./use-requests.js";
import { useRun } from "./use-run.js";

function Page(): ReactNode {
  const { requests, loading } = useRequests();
  const { run } = useRun("run_1");
  return h("p", null, `${loading ? "loading" : requests.length} ${run?.state ?? "no run yet"}`);
}

describe("server rendering", () => {
  it("renders hooks and a form without a DOM, with the schema's defaults", () => {
    expect(typeof (globalThis as { document?: unknown }).document).toBe("undefined");
    const schema = {
      type: "object",
      properties: {
        env: { title: "Environment", enum: ["staging", "production"], default: "staging" },
      },
    };
    const html = renderToString(
      h(
        ToolnexusProvider,
        { baseUrl: "http://127.0.0.1:1/api" },
        h(Page),
        // biome-ignore lint/correctness/noChildrenProp: a render prop, as JSX passes it
        h(SchemaForm, { schema, children: (form) => renderForm(form) }),
      ),
    );
    expect(html).toContain("loading no run yet");
    expect(html).toMatch(/<label[^>]*>Environment<\/label>/);
    expect(html).toMatch(/<option value="0" selected="">staging<\/option>/);
  });

  it("a hook outside the provider says what is missing", () => {
    expect(() => renderToString(h(Page))).toThrow(/ToolnexusProvider/);
  });
});
