/**
 * The one error catalogue and renderer. Every error the server sends has the JSON body of
 * docs/wire.md §3: `{"error_code", "error_message", "error_message_chs"}`.
 *
 * Operation errors come from INTERFACE.md §7, spelled exactly as there (including the
 * `InvaildParameter` of DeleteTool, ListTool, GetTool and GetToolDetails). The common errors
 * (authentication, framing, limits) are this product's own and documented in docs/api.md.
 */
import { DomainError } from '../domain/errors.js';

export interface ErrorSpec {
  status: number;
  code: string;
  /** English message; `{reason}` is replaced by the cause. */
  en: string;
  /** Chinese message with the same placeholder. */
  zh: string;
}

const spec = (status: number, code: string, en: string, zh: string): ErrorSpec => ({ status, code, en, zh });

export interface OperationErrors {
  invalid: ErrorSpec;
  notFound?: ErrorSpec;
}

/** Per-operation errors. The keys are the operation names of INTERFACE.md §4 and our own routes. */
export const OPERATION_ERRORS = {
  CreateTool: { invalid: spec(400, 'InvalidParameter', 'Create tool failed, since {reason}.', '创建工具失败，原因：{reason}。') },
  PutTool: { invalid: spec(400, 'InvalidParameter', 'Put tool definition failed, since {reason}.', '更新工具定义失败，原因：{reason}。') },
  DeleteTool: { invalid: spec(400, 'InvaildParameter', 'Delete Tool failed, since {reason}.', '删除工具失败，原因：{reason}。') },
  ListTool: {
    invalid: spec(400, 'InvaildParameter', 'List Tool failed, since {reason}.', '列出工具失败，原因：{reason}。'),
    notFound: spec(404, 'ToolNotExists', 'List Tool cannot find anything.', '列出工具时找不到任何内容。'),
  },
  GetTool: {
    invalid: spec(400, 'InvaildParameter', 'Get Tool failed, since {reason}.', '获取工具失败，原因：{reason}。'),
    notFound: spec(404, 'ToolNotExists', 'Get Tool cannot find anything.', '获取工具时找不到任何内容。'),
  },
  GetToolParameterTemplate: {
    invalid: spec(400, 'InvaildParameter', 'Get Tool failed, since {reason}.', '获取工具失败，原因：{reason}。'),
    notFound: spec(404, 'ToolNotExists', 'Get Tool cannot find anything.', '获取工具时找不到任何内容。'),
  },
  GetToolDetails: {
    invalid: spec(400, 'InvaildParameter', 'Get Tool failed, since {reason}.', '获取工具失败，原因：{reason}。'),
    notFound: spec(404, 'ToolNotExists', 'Get Tool cannot find anything.', '获取工具时找不到任何内容。'),
  },
  CreateWorkflow: { invalid: spec(400, 'InvalidParameter', 'Create workflow failed, since {reason}.', '创建工作流失败，原因：{reason}。') },
  PutWorkflow: { invalid: spec(400, 'InvalidParameter', 'Put workflow definition failed, since {reason}.', '更新工作流定义失败，原因：{reason}。') },
  GetWorkflow: { invalid: spec(400, 'InvalidParameter', 'Get workflow failed, since {reason}.', '获取工作流失败，原因：{reason}。') },
  DeleteWorkflow: { invalid: spec(400, 'InvalidParameter', 'Delete workflow failed, since {reason}.', '删除工作流失败，原因：{reason}。') },
  ListWorkflow: {
    invalid: spec(400, 'InvalidParameter', 'List workflow failed, since {reason}.', '列出工作流失败，原因：{reason}。'),
    notFound: spec(404, 'WorkflowNotExists', 'List workflow cannot find anything.', '列出工作流时找不到任何内容。'),
  },
  GetExecutableWorkflow: {
    invalid: spec(400, 'InvalidParameter', 'Get executable workflow failed, since {reason}.', '获取可执行工作流失败，原因：{reason}。'),
  },
  ListExecutableWorkflow: {
    invalid: spec(400, 'InvalidParameter', 'List executable workflow failed, since {reason}.', '列出可执行工作流失败，原因：{reason}。'),
    notFound: spec(404, 'WorkflowNotExists', 'List executable workflow cannot find anything.', '列出可执行工作流时找不到任何内容。'),
  },
  // The document's patterns for ActivateWorkflow carry no {reason}; we keep them as the prefix
  // and append the cause, as the real platform does ("Activate workflow failed, since ...").
  ActivateWorkflow: {
    invalid: spec(400, 'InvalidParameter', 'Invalid parameter, since {reason}.', '创建任务时给定的输入参数错误，原因：{reason}。'),
    notFound: spec(404, 'TaskNotFound', 'Activate workflow failed, since {reason}.', '启动工作流失败，原因：{reason}。'),
  },
  // Routes of docs/wire.md §2 and this product's own routes.
  SetRunTemplate: {
    invalid: spec(400, 'InvalidParameter', 'Set executable workflow parameters failed, since {reason}.', '设置可执行工作流参数失败，原因：{reason}。'),
  },
  GetWorkflowGraph: {
    invalid: spec(400, 'InvalidParameter', 'Get workflow graph failed, since {reason}.', '获取工作流图失败，原因：{reason}。'),
    notFound: spec(404, 'WorkflowNotExists', 'Get workflow graph failed, since {reason}.', '获取工作流图失败，原因：{reason}。'),
  },
  ExportToolCwl: {
    invalid: spec(400, 'InvalidParameter', 'Export tool as CWL failed, since {reason}.', '导出工具为 CWL 失败，原因：{reason}。'),
    notFound: spec(404, 'ToolNotExists', 'Export tool as CWL failed, since {reason}.', '导出工具为 CWL 失败，原因：{reason}。'),
  },
  ExportWorkflowCwl: {
    invalid: spec(400, 'InvalidParameter', 'Export workflow as CWL failed, since {reason}.', '导出工作流为 CWL 失败，原因：{reason}。'),
    notFound: spec(404, 'WorkflowNotExists', 'Export workflow as CWL failed, since {reason}.', '导出工作流为 CWL 失败，原因：{reason}。'),
  },
  RunCwl: {
    invalid: spec(400, 'InvalidParameter', 'Run CWL failed, since {reason}.', '运行 CWL 失败，原因：{reason}。'),
  },
  ImportCwl: {
    invalid: spec(400, 'InvalidParameter', 'Import CWL failed, since {reason}.', '导入 CWL 失败，原因：{reason}。'),
  },
  GetCwlRun: {
    invalid: spec(400, 'InvalidParameter', 'Get CWL run failed, since {reason}.', '获取 CWL 运行失败，原因：{reason}。'),
    notFound: spec(404, 'TaskNotFound', 'Get CWL run failed, since {reason}.', '获取 CWL 运行失败，原因：{reason}。'),
  },
  Task: {
    invalid: spec(400, 'InvalidParameter', 'Task request failed, since {reason}.', '任务请求失败，原因：{reason}。'),
    notFound: spec(404, 'TaskNotFound', 'Task request failed, since {reason}.', '任务请求失败，原因：{reason}。'),
  },
  Job: {
    invalid: spec(400, 'InvalidParameter', 'Job request failed, since {reason}.', '作业请求失败，原因：{reason}。'),
    notFound: spec(404, 'JobNotFound', 'Job request failed, since {reason}.', '作业请求失败，原因：{reason}。'),
  },
  Data: {
    invalid: spec(400, 'InvalidParameter', 'Data request failed, since {reason}.', '数据请求失败，原因：{reason}。'),
    notFound: spec(404, 'DataNotFound', 'Data request failed, since {reason}.', '数据请求失败，原因：{reason}。'),
  },
  // GA4GH TES (docs/ga4gh.md): rendered as {msg, status_code}.
  Tes: {
    invalid: spec(400, 'InvalidParameter', 'TES request failed, since {reason}.', 'TES 请求失败，原因：{reason}。'),
    notFound: spec(404, 'TaskNotFound', 'TES request failed, since {reason}.', 'TES 请求失败，原因：{reason}。'),
  },
  CreateTesTask: {
    invalid: spec(400, 'InvalidParameter', 'Create TES task failed, since {reason}.', '创建 TES 任务失败，原因：{reason}。'),
    notFound: spec(404, 'ResourceNotFound', 'Create TES task failed, since {reason}.', '创建 TES 任务失败，原因：{reason}。'),
  },
  CancelTesTask: {
    invalid: spec(400, 'InvalidParameter', 'Cancel TES task failed, since {reason}.', '取消 TES 任务失败，原因：{reason}。'),
    notFound: spec(404, 'TaskNotFound', 'Cancel TES task failed, since {reason}.', '取消 TES 任务失败，原因：{reason}。'),
  },
  Account: {
    invalid: spec(400, 'InvalidParameter', 'Request failed, since {reason}.', '请求失败，原因：{reason}。'),
    notFound: spec(404, 'ResourceNotFound', 'Request failed, since {reason}.', '请求失败，原因：{reason}。'),
  },
} as const satisfies Record<string, OperationErrors>;

export type Operation = keyof typeof OPERATION_ERRORS;

/** Errors common to every operation. */
export const COMMON_ERRORS = {
  MissingAuthorization: spec(401, 'MissingAuthorization', 'The request is not signed, since {reason}.', '请求未签名，原因：{reason}。'),
  InvalidAuthorization: spec(
    401,
    'InvalidAuthorization',
    'The Authorization header is malformed, since {reason}.',
    'Authorization 请求头格式错误，原因：{reason}。',
  ),
  InvalidAccessKeyId: spec(401, 'InvalidAccessKeyId', 'The access key is not valid, since {reason}.', '访问密钥无效，原因：{reason}。'),
  SignatureDoesNotMatch: spec(401, 'SignatureDoesNotMatch', 'The request signature does not match, since {reason}.', '请求签名不匹配，原因：{reason}。'),
  RequestTimeTooSkewed: spec(401, 'RequestTimeTooSkewed', 'The request time is not acceptable, since {reason}.', '请求时间不可接受，原因：{reason}。'),
  InvalidDigest: spec(400, 'InvalidDigest', 'The Content-MD5 header does not match the body, since {reason}.', 'Content-MD5 与请求体不符，原因：{reason}。'),
  AccessDenied: spec(403, 'AccessDenied', 'Access denied, since {reason}.', '拒绝访问，原因：{reason}。'),
  ResourceNotFound: spec(404, 'ResourceNotFound', 'The resource does not exist, since {reason}.', '资源不存在，原因：{reason}。'),
  MethodNotAllowed: spec(405, 'MethodNotAllowed', 'The method is not allowed, since {reason}.', '不允许的请求方法，原因：{reason}。'),
  MalformedRequest: spec(400, 'MalformedRequest', 'The request is malformed, since {reason}.', '请求格式错误，原因：{reason}。'),
  UnsupportedMediaType: spec(415, 'UnsupportedMediaType', 'The content type is not supported, since {reason}.', '不支持的内容类型，原因：{reason}。'),
  EntityTooLarge: spec(413, 'EntityTooLarge', 'The request body is too large, since {reason}.', '请求体过大，原因：{reason}。'),
  HeadersTooLarge: spec(431, 'RequestHeaderFieldsTooLarge', 'The request headers are too large, since {reason}.', '请求头过大，原因：{reason}。'),
  InvalidRange: spec(416, 'InvalidRange', 'The requested range cannot be served, since {reason}.', '请求的范围无法满足，原因：{reason}。'),
  ExpectationFailed: spec(417, 'ExpectationFailed', 'The expectation cannot be met, since {reason}.', '无法满足 Expect 请求头，原因：{reason}。'),
  RequestTimeout: spec(408, 'RequestTimeout', 'The request took too long, since {reason}.', '请求超时，原因：{reason}。'),
  UnsupportedRequirement: spec(
    400,
    'UnsupportedRequirement',
    'The document needs a feature gdflow does not support, since {reason}.',
    '文档需要 gdflow 不支持的功能，原因：{reason}。',
  ),
  InternalError: spec(500, 'InternalError', 'The server failed to handle the request (request id {reason}).', '服务器处理请求失败（请求编号 {reason}）。'),
  ServiceUnavailable: spec(503, 'ServiceUnavailable', 'The service is unavailable, since {reason}.', '服务暂不可用，原因：{reason}。'),
} as const satisfies Record<string, ErrorSpec>;

export type CommonError = keyof typeof COMMON_ERRORS;

export interface ErrorBody {
  error_code: string;
  error_message: string;
  error_message_chs: string;
}

/** A message with its `{reason}` filled in: by a function, so that `$'`, `$&` and `$$` in the reason stay as written. */
const fill = (message: string, reason: string): string => message.replace('{reason}', () => reason);

export function renderSpec(s: ErrorSpec, reason: string): ErrorBody {
  return {
    error_code: s.code,
    error_message: fill(s.en, reason),
    error_message_chs: fill(s.zh, reason),
  };
}

/** The GA4GH error body (WES's ErrorResponse, which TES 1.1 lacks): the English message and the status. */
export function renderGa4gh(s: ErrorSpec, reason: string): { msg: string; status_code: number } {
  return { msg: fill(s.en, reason), status_code: s.status };
}

/** An error already resolved to its HTTP form; thrown by the HTTP layer itself (auth, limits). */
export class HttpError extends Error {
  constructor(
    readonly spec: ErrorSpec,
    readonly reason: string,
  ) {
    super(fill(spec.en, reason));
    this.name = 'HttpError';
  }
  get status(): number {
    return this.spec.status;
  }
}

export const httpError = (code: CommonError, reason: string): HttpError => new HttpError(COMMON_ERRORS[code], reason);

/** The spec for a domain error raised inside an operation. */
export function specForDomainError(operation: Operation | undefined, error: DomainError): ErrorSpec {
  if (error.kind === 'forbidden') return COMMON_ERRORS.AccessDenied;
  if (error.kind === 'unsupported') return COMMON_ERRORS.UnsupportedRequirement;
  const effective = error.subject ?? operation;
  if (!effective) return error.kind === 'not_found' ? COMMON_ERRORS.ResourceNotFound : COMMON_ERRORS.MalformedRequest;
  const errors: OperationErrors = OPERATION_ERRORS[error.kind === 'not_found' ? effective : (operation ?? effective)];
  // Operations whose document lists no not-found code answer with their invalid-parameter error.
  return error.kind === 'not_found' ? (errors.notFound ?? errors.invalid) : errors.invalid;
}
