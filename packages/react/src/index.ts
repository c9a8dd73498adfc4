// The handler's views, so a page needs no import from the server package.
export type { RequestView, RunView, WebErrorBody, WebErrorCode } from "@toolnexus/web";
export type {
  AnswerBody,
  AnswerReceipt,
  CancelReceipt,
  RequestsQuery,
} from "./api.js";
export type {
  ToolnexusConfig,
  ToolnexusContextValue,
  ToolnexusProviderProps,
} from "./config.js";
export { ToolnexusProvider, useToolnexus } from "./config.js";
export { ToolnexusHttpError } from "./errors.js";
export type { RawValue } from "./field-values.js";
export type { FollowOptions, RunEventMessage } from "./follow.js";
export { followRunEvents, TERMINAL_EVENT_TYPES } from "./follow.js";
export type { FieldProblems } from "./issues.js";
export { problemsByField } from "./issues.js";
export type {
  EnumChoice,
  FieldConstraints,
  FieldKind,
  FieldSpec,
} from "./schema-fields.js";
export { fieldsOf } from "./schema-fields.js";
export type { SchemaFormProps } from "./schema-form.js";
export { SchemaForm } from "./schema-form.js";
export type { AnswerState, AnswerStatus } from "./use-answer.js";
export { useAnswer } from "./use-answer.js";
export type { CancelState, CancelStatus } from "./use-cancel.js";
export { useCancel } from "./use-cancel.js";
export type { RequestState } from "./use-request.js";
export { useRequest } from "./use-request.js";
export type { RequestsState, UseRequestsOptions } from "./use-requests.js";
export { useRequests } from "./use-requests.js";
export type { RunState, UseRunOptions } from "./use-run.js";
export { useRun } from "./use-run.js";
export type { RunEventsState, RunEventsStatus, UseRunEventsOptions } from "./use-run-events.js";
export { useRunEvents } from "./use-run-events.js";
export type {
  FieldControl,
  FieldInputProps,
  FieldRadio,
  SchemaField,
  SchemaFormState,
  UseSchemaFormOptions,
} from "./use-schema-form.js";
export { useSchemaForm } from "./use-schema-form.js";
