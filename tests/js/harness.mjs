// What the client scripts share: a fetch that records each request it sends, and a step
// runner (each step's answer or error recorded under its name; a step that fails or
// hangs never stops the others).
const STEP_TIMEOUT_MS = 5000;

// `describe` turns a thrown error into the JSON the Python test reads.
export function stepRunner(describe) {
  const steps = {};
  // One step that hangs (a stream that never ends) is reported as such, and the rest run.
  async function step(name, run) {
    process.stderr.write(`step ${name}\n`);
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`step timed out after ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
    });
    try {
      steps[name] = { ok: (await Promise.race([run(), timeout])) ?? null };
    } catch (error) {
      steps[name] = { error: describe(error) };
    } finally {
      clearTimeout(timer);
    }
  }
  return { steps, step };
}

// Records what goes on the wire (the JSON-RPC method too, when the body names one);
// everything else is the SDK's own behaviour.
export function fetchRecorder() {
  const sent = [];
  async function recordingFetch(input, init) {
    const url = new URL(typeof input === 'object' && 'url' in input ? input.url : String(input));
    const headers = new Headers(init?.headers ?? {});
    let rpcMethod = null;
    try {
      rpcMethod = JSON.parse(init?.body ?? 'null')?.method ?? null;
    } catch {
      // not JSON: no method to record
    }
    sent.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      version: headers.get('A2A-Version'),
      contentType: headers.get('Content-Type'),
      rpcMethod,
    });
    return fetch(input, init);
  }
  return { sent, recordingFetch };
}
