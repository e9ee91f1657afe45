/**
 * Why an n8n node type has no equivalent here: retrieval and other AI nodes wait for their
 * issues (`rag` for the memories issue, the agent runtime's nodes), app nodes are connectors
 * (the integrations issue), the rest of n8n's core nodes are simply not carried over.
 */
const CORE = new Set([
  'function', 'functionItem', 'executeCommand', 'splitOut', 'itemLists', 'executeWorkflow', 'executeWorkflowTrigger', 'errorTrigger', 'html', 'xml', 'markdown',
  'crypto', 'compression', 'readBinaryFile', 'readBinaryFiles', 'writeBinaryFile', 'moveBinaryData', 'spreadsheetFile', 'convertToFile', 'extractFromFile',
  'emailSend', 'emailReadImap', 'ssh', 'ftp', 'renameKeys', 'summarize', 'compareDatasets', 'n8nTrainingCustomerDatastore', 'localFileTrigger',
  'formTrigger', 'form', 'chatTrigger', 'interval', 'debugHelper', 'editImage', 'totp', 'jwt', 'graphql', 'httpRequestTool',
]);

export function unmappedReason(type: string): string {
  const short = type.replace(/^n8n-nodes-base\./, '');
  if (type.startsWith('@n8n/n8n-nodes-langchain.')) {
    const name = type.slice('@n8n/n8n-nodes-langchain.'.length);
    if (/vectorStore|retriever|embeddings|documentLoader|textSplitter|memory/i.test(name)) return `a retrieval node (${name}): the rag node waits for the memories issue and is absent until then`;
    return `an AI node (${name}): the agent runtime's nodes (llm, agent, classifier, extract, tool) are not mapped from n8n`;
  }
  if (type.startsWith('n8n-nodes-base.') && !CORE.has(short)) return `an app integration node (${short}): connector nodes wait for the integrations issue and are absent until then`;
  if (!type.startsWith('n8n-nodes-base.')) return `a community node (${type}) has no equivalent here`;
  return `node type '${type}' has no equivalent here`;
}
