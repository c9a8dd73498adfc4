// Where the @toolnexus/web handler is and how to reach it, shared by every hook below one
// provider. Nothing here touches `window` at import time, so server rendering can import it.
import {
  createContext,
  createElement,
  type ReactElement,
  type ReactNode,
  useCallback,
  useContext,
  useMemo,
  useRef,
  useState,
} from "react";

/** How the hooks reach the handler. */
export interface ToolnexusConfig {
  /** The handler's base URL, its `basePath` included: `"/api/toolnexus"` or an absolute URL. */
  baseUrl: string;
  /** The fetch to use (default `globalThis.fetch`, read at call time). */
  fetch?: typeof fetch;
  /** Headers sent with every call (an `authorization` token, say); a function is read per call. */
  headers?: Record<string, string> | (() => Record<string, string>);
  /** `credentials` of every call (default the browser's `same-origin`): `include` for cookies cross-site. */
  credentials?: "omit" | "same-origin" | "include";
}

/** What the provider hands its hooks: the config and a counter bumped after each change. */
export interface ToolnexusContextValue {
  /** The base URL: hooks reconnect when it changes, not when headers or fetch do. */
  baseUrl: string;
  /** The current config (headers, fetch and credentials as last rendered). */
  getConfig: () => ToolnexusConfig;
  /** Bumped after an answer or a cancel made through these hooks, so lists refetch at once. */
  version: number;
  /** Bumps `version`. */
  changed: () => void;
}

const ToolnexusContext = createContext<ToolnexusContextValue | null>(null);

/** Props of {@link ToolnexusProvider}: the config's fields, and the children. */
export interface ToolnexusProviderProps extends ToolnexusConfig {
  children?: ReactNode;
}

/** Gives every hook below it the handler's address and how to call it. */
export function ToolnexusProvider(props: ToolnexusProviderProps): ReactElement {
  const { children, ...config } = props;
  // Headers and fetch are read at call time through a ref: an inline `headers={{…}}` must not
  // reconnect every stream on each render.
  const latest = useRef<ToolnexusConfig>(config);
  latest.current = config;
  const getConfig = useCallback(() => latest.current, []);
  const [version, setVersion] = useState(0);
  const changed = useCallback(() => setVersion((v) => v + 1), []);
  const { baseUrl } = config;
  const value = useMemo<ToolnexusContextValue>(
    () => ({ baseUrl, getConfig, version, changed }),
    [baseUrl, getConfig, version, changed],
  );
  return createElement(ToolnexusContext.Provider, { value }, children);
}

/** The provider's value; throws when a hook is used outside a {@link ToolnexusProvider}. */
export function useToolnexus(): ToolnexusContextValue {
  const value = useContext(ToolnexusContext);
  if (value === null) {
    throw new Error("@toolnexus/react: wrap this component in a <ToolnexusProvider baseUrl=…>");
  }
  return value;
}
