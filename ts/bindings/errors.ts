// ⑦ The one error class native code throws for runtime failures; misuse
// of the API throws TypeError instead.
export type FlowgateErrorCode =
  | 'E_FILE_OPEN'
  | 'E_CAPTURE_OPEN'
  | 'E_STATE'
  | 'E_INVALID'
  | 'E_LIMIT'
  | 'E_OUTPUT_OPEN'
  // PCAP extraction: a filter libpcap refuses, all extraction slots taken, an interface without packets kept
  | 'E_BPF'
  | 'E_BUSY'
  | 'E_NOT_RECORDED';

export class FlowgateError extends Error {
  readonly code: FlowgateErrorCode;
  constructor(message: string, code: FlowgateErrorCode) {
    super(message);
    this.name = 'FlowgateError';
    this.code = code;
  }
}
