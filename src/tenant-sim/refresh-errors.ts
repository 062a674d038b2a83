/** Refresh failures as the service reports them: `serviceExceptionJson` with an error code and a description. */

/** Descriptions the service gives with some common refresh error codes. */
const REFRESH_ERROR_DESCRIPTIONS: Record<string, string> = {
  ModelRefreshFailed_CredentialsNotSpecified: 'The credentials provided for the data source are invalid or missing.',
  DM_GWPipeline_Client_GatewayUnreachable: 'Unable to connect to the on-premises data gateway.',
  DM_GWPipeline_Gateway_DataSourceAccessError: 'The gateway could not reach the data source.',
  Timeout: 'The refresh operation timed out.',
  ModelRefresh_ShortMessage_ProcessingError: 'An error occurred while processing the semantic model.',
  DM_ErrorDetailNameCode_UnderlyingErrorMessage: 'The database was evicted and the operation cancelled to load balance the CPU load on the node.',
  ModelRefreshFailed_OutOfMemory: 'Resource Governing: the operation was cancelled because there was not enough memory.',
};

/** A refresh failure's `serviceExceptionJson` (a JSON string, as the service returns it). */
export function refreshException(errorCode: string): string {
  return JSON.stringify({ errorCode, errorDescription: REFRESH_ERROR_DESCRIPTIONS[errorCode] ?? 'The refresh failed.' });
}
