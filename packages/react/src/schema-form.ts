// The form hook as a component, for a page that prefers render props to a hook call.
import { createElement, Fragment, type ReactElement, type ReactNode } from "react";
import {
  type SchemaFormState,
  type UseSchemaFormOptions,
  useSchemaForm,
} from "./use-schema-form.js";

export interface SchemaFormProps extends UseSchemaFormOptions {
  /** The request's JSON Schema (`request.data?.schema`). */
  schema: unknown;
  /** Renders the form from its state: your elements, the state's props spread on them. */
  children: (form: SchemaFormState) => ReactNode;
}

/** Renders `children(form)`; change `key` to start over for another request. */
export function SchemaForm(props: SchemaFormProps): ReactElement {
  const { schema, children, ...options } = props;
  // A fragment, so the component's type is a JSX element under React 18's types too.
  return createElement(Fragment, null, children(useSchemaForm(schema, options)));
}
