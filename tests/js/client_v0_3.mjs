// The @a2a-js/sdk 0.3 client (the npm release 0.3.14, installed as @a2a-js/sdk-v0_3)
// against a server, for tests/test_js_interop_v0_3.py.
//
//   node client_v0_3.mjs '{"base": "http://127.0.0.1:PORT",
//                          "binding": "HTTP+JSON" | "JSONRPC",
//                          "awkwardIds": [...], "bearer": "<token>"}'
//
// Discovers the agent from <base>/.well-known/agent-card.json with the 0.3 SDK's own
// ClientFactory (its 0.3 card: url, preferredTransport, additionalInterfaces; the
// binding asked for preferred), runs every 0.3 operation (0.3 has no ListTasks and no
// tenant), and prints one JSON object: the card as the SDK read it, the transport
// chosen, every HTTP request the SDK sent (with the JSON-RPC method it named), and per
// step either {"ok": <0.3 JSON>} or {"error": {...}}. A step that fails never stops
// the others, so the Python test sees every answer.
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk-v0_3/client';

import { fetchRecorder, stepRunner } from './harness.mjs';

const config = JSON.parse(process.argv[2]);
const { sent, recordingFetch } = fetchRecorder();

function describe(error) {
  const envelope = error?.errorResponse?.error;
  return {
    name: error?.name ?? typeof error,
    className: error?.constructor?.name,
    message: String(error?.message ?? error),
    code: envelope?.code ?? error?.code,
    // A stream's error event comes as an Error whose cause is the typed error.
    cause: error?.cause ? String(error.cause?.message ?? error.cause) : undefined,
    causeName: error?.cause?.name,
    causeCode: error?.cause?.errorResponse?.error?.code,
  };
}

const { steps, step } = stepRunner(describe);

// A subscription to a working task stays open: `limit` stops after that many events.
async function collect(stream, limit = Infinity) {
  const events = [];
  for await (const event of stream) {
    events.push(event);
    if (events.length >= limit) break;
  }
  return events;
}

const message = (text) => ({
  message: {
    kind: 'message',
    messageId: `m-${text}-${Math.random()}`,
    role: 'user',
    parts: [{ kind: 'text', text }],
  },
});

const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [
      new JsonRpcTransportFactory({ fetchImpl: recordingFetch }),
      new RestTransportFactory({ fetchImpl: recordingFetch }),
    ],
    preferredTransports: [config.binding],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: recordingFetch }),
  })
);

let client;
let card;
try {
  card = await factory.options.cardResolver.resolve(config.base);
  client = await factory.createFromAgentCard(card);
} catch (error) {
  process.stdout.write(JSON.stringify({ discovery: describe(error), card, sent }) + '\n');
  process.exit(0);
}

await step('message/send', async () => client.sendMessage(message('hello')));
await step('message/send hold', async () => client.sendMessage(message('hold')));
const done = steps['message/send'].ok?.id ?? 'missing';
const held = steps['message/send hold'].ok?.id ?? 'missing';
await step('message/stream', async () => collect(client.sendMessageStream(message('stream'))));
await step('tasks/get', async () => client.getTask({ id: done, historyLength: 0 }));
await step('tasks/resubscribe', async () => collect(client.resubscribeTask({ id: held }), 1));
await step('tasks/cancel', async () => client.cancelTask({ id: held }));
const pushConfig = (id) => ({
  taskId: done,
  pushNotificationConfig: { id, url: 'https://example.test/hook', token: 't' },
});
await step('tasks/pushNotificationConfig/set', async () =>
  client.setTaskPushNotificationConfig(pushConfig('c1'))
);
await step('tasks/pushNotificationConfig/get', async () =>
  client.getTaskPushNotificationConfig({ id: done, pushNotificationConfigId: 'c1' })
);
// Client.getTaskPushNotificationConfig is typed to take TaskIdParams: the task's id alone
// (pushNotificationConfigId is optional in 0.3). Its REST transport refuses that locally.
await step('tasks/pushNotificationConfig/get by task', async () =>
  client.getTaskPushNotificationConfig({ id: done })
);
await step('tasks/pushNotificationConfig/list', async () =>
  client.listTaskPushNotificationConfig({ id: done })
);
await step('tasks/pushNotificationConfig/delete', async () => {
  await client.deleteTaskPushNotificationConfig({ id: done, pushNotificationConfigId: 'c1' });
  return client.listTaskPushNotificationConfig({ id: done });
});

// The errors the agent answers, as the 0.3 SDK's client reports them.
await step('error TaskNotFound', async () => client.getTask({ id: 'no-such-task' }));
await step('error TaskNotCancelable', async () => client.cancelTask({ id: done }));
await step('error UnsupportedOperation', async () => collect(client.resubscribeTask({ id: done })));

// Awkward ids: a push config id round trip (a path segment over REST), and a task id
// that reaches the server intact (TaskNotFound for it).
for (const id of config.awkwardIds ?? []) {
  await step(`awkward set ${id}`, async () => client.setTaskPushNotificationConfig(pushConfig(id)));
  await step(`awkward get ${id}`, async () =>
    client.getTaskPushNotificationConfig({ id: done, pushNotificationConfigId: id })
  );
  await step(`awkward delete ${id}`, async () =>
    client.deleteTaskPushNotificationConfig({ id: done, pushNotificationConfigId: id })
  );
  await step(`awkward task ${id}`, async () => client.getTask({ id }));
}

// Last: Client.getAgentCard asks for the authenticated extended card when the card says
// there is one (supportsAuthenticatedExtendedCard); the bearer token as a header.
const auth = config.bearer ? { serviceParameters: { Authorization: `Bearer ${config.bearer}` } } : {};
await step('agent/getAuthenticatedExtendedCard', async () => client.getAgentCard(auth));

process.stdout.write(
  JSON.stringify({ card, transport: client.transport.constructor.name, steps, sent }) + '\n',
  // A timed-out fetch may still hold the event loop open.
  () => process.exit(0)
);
