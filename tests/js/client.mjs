// The @a2a-js/sdk 1.3.0 clients against a server, for tests/test_js_interop.py.
//
//   node client.mjs '{"base": "http://127.0.0.1:PORT",
//                     "binding": "HTTP+JSON" | "JSONRPC" | "GRPC",
//                     "tenant": "", "awkwardIds": [...], "bearer": "<token>",
//                     "legacy": false}'
//
// Discovers the agent from <base>/.well-known/agent-card.json with the SDK's own
// ClientFactory (preferring the binding asked for; GRPC through its
// @a2a-js/sdk/client/grpc transport over @grpc/grpc-js), runs every operation, and prints
// one JSON object: the card, the transport chosen, every HTTP request the SDK sent (over
// gRPC only the card's), and per
// step either {"ok": <ProtoJSON>} or {"error": {...}}. A step that fails never stops
// the others, so the Python test sees every answer. With "legacy": true every call
// after discovery goes through 1.3.0's 0.3 transports (LegacyJsonRpcTransport,
// LegacyRestTransport from @a2a-js/sdk/compat/v0_3/client) to the card's interface of
// that binding: the same 1.0 calls, spoken as 0.3 on the wire (tests/test_js_interop_v0_3.py).
import {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  TenantTransportDecorator,
} from '@a2a-js/sdk/client';

import { fetchRecorder, stepRunner } from './harness.mjs';

const config = JSON.parse(process.argv[2]);
const { sent, recordingFetch } = fetchRecorder();

function describe(error) {
  return {
    name: error?.name ?? typeof error,
    message: String(error?.message ?? error),
    reason: error?.reason,
    statusCode: error?.statusCode,
    envelopeCode: error?.envelopeCode,
    metadata: error?.metadata,
    grpcCode: error?.status,
  };
}

const { steps, step } = stepRunner(describe);

const sendResult = (result) =>
  'messageId' in result ? { message: Message.toJSON(result) } : { task: Task.toJSON(result) };

// A subscription to a working task stays open: `limit` stops after that many events.
async function collect(stream, limit = Infinity) {
  const events = [];
  for await (const event of stream) {
    events.push(StreamResponse.toJSON(event));
    if (events.length >= limit) break;
  }
  return events;
}

const message = (text) => ({
  message: {
    messageId: `m-${text}-${Math.random()}`,
    contextId: '',
    taskId: '',
    role: 1 /* ROLE_USER */,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  tenant: '',
  configuration: undefined,
  metadata: undefined,
});

const transports = [
  new JsonRpcTransportFactory({ fetchImpl: recordingFetch }),
  new RestTransportFactory({ fetchImpl: recordingFetch }),
];
if (config.binding === 'GRPC') {
  // Loaded only when asked: the gRPC transport needs the optional @grpc/grpc-js.
  const { GrpcTransportFactory } = await import('@a2a-js/sdk/client/grpc');
  transports.push(new GrpcTransportFactory());
}
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports,
    preferredTransports: [config.binding],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: recordingFetch }),
  })
);

let client;
let card;
try {
  client = await factory.createFromUrl(config.base);
  card = await factory.options.cardResolver.resolve(config.base);
} catch (error) {
  process.stdout.write(JSON.stringify({ discovery: describe(error), sent }) + '\n');
  process.exit(0);
}
if (config.legacy) {
  const { LegacyJsonRpcTransport, LegacyRestTransport } = await import('@a2a-js/sdk/compat/v0_3/client');
  const endpoint = card.supportedInterfaces.find((i) => i.protocolBinding === config.binding).url;
  const Legacy = config.binding === 'JSONRPC' ? LegacyJsonRpcTransport : LegacyRestTransport;
  client = new Client(new Legacy({ endpoint, fetchImpl: recordingFetch }), card);
}
if (config.tenant) {
  client = new Client(new TenantTransportDecorator(client.transport, config.tenant), card);
}
const tenant = config.tenant ?? '';

let done;
let held;
await step('SendMessage', async () => sendResult(await client.sendMessage(message('hello'))));
await step('SendMessage hold', async () => sendResult(await client.sendMessage(message('hold'))));
done = steps['SendMessage'].ok?.task?.id ?? 'missing';
held = steps['SendMessage hold'].ok?.task?.id ?? 'missing';
await step('SendStreamingMessage', async () => collect(client.sendMessageStream(message('stream'))));
await step('GetTask', async () =>
  Task.toJSON(await client.getTask({ tenant, id: done, historyLength: 0 }))
);
await step('ListTasks', async () =>
  ListTasksResponse.toJSON(
    await client.listTasks({
      tenant,
      contextId: '',
      status: 2 /* TASK_STATE_WORKING */,
      pageToken: '',
      statusTimestampAfter: undefined,
    })
  )
);
await step('SubscribeToTask', async () => collect(client.resubscribeTask({ tenant, id: held }), 1));
await step('CancelTask', async () =>
  Task.toJSON(await client.cancelTask({ tenant, id: held, metadata: undefined }))
);
const pushConfig = (id) => ({
  tenant,
  id,
  taskId: done,
  url: 'https://example.test/hook',
  token: 't',
  authentication: undefined,
});
await step('CreateTaskPushNotificationConfig', async () =>
  TaskPushNotificationConfig.toJSON(await client.createTaskPushNotificationConfig(pushConfig('c1')))
);
await step('GetTaskPushNotificationConfig', async () =>
  TaskPushNotificationConfig.toJSON(
    await client.getTaskPushNotificationConfig({ tenant, taskId: done, id: 'c1' })
  )
);
await step('ListTaskPushNotificationConfigs', async () =>
  ListTaskPushNotificationConfigsResponse.toJSON(
    await client.listTaskPushNotificationConfig({ tenant, taskId: done, pageSize: 0, pageToken: '' })
  )
);
await step('DeleteTaskPushNotificationConfig', async () => {
  await client.deleteTaskPushNotificationConfig({ tenant, taskId: done, id: 'c1' });
  return ListTaskPushNotificationConfigsResponse.toJSON(
    await client.listTaskPushNotificationConfig({ tenant, taskId: done, pageSize: 0, pageToken: '' })
  );
});

// The errors the agent answers, as the SDK's client reports them.
await step('error TaskNotFound', async () => client.getTask({ tenant, id: 'no-such-task' }));
await step('error TaskNotCancelable', async () =>
  client.cancelTask({ tenant, id: done, metadata: undefined })
);
await step('error UnsupportedOperation', async () =>
  collect(client.resubscribeTask({ tenant, id: done }))
);

// Awkward ids as path segments: a push config id round trip, and a task id that reaches
// the server intact (the agent names it in its TaskNotFound message).
for (const id of config.awkwardIds ?? []) {
  await step(`awkward create ${id}`, async () =>
    TaskPushNotificationConfig.toJSON(await client.createTaskPushNotificationConfig(pushConfig(id)))
  );
  await step(`awkward get ${id}`, async () =>
    TaskPushNotificationConfig.toJSON(
      await client.getTaskPushNotificationConfig({ tenant, taskId: done, id })
    )
  );
  await step(`awkward delete ${id}`, async () =>
    client.deleteTaskPushNotificationConfig({ tenant, taskId: done, id })
  );
  await step(`awkward task ${id}`, async () => client.getTask({ tenant, id }));
}

// Last: Client.getAgentCard asks for the extended card when the card says there is one,
// and from then on the client judges capabilities by that card.
// The card's security scheme is a bearer token; service parameters travel as headers.
const auth = config.bearer ? { serviceParameters: { Authorization: `Bearer ${config.bearer}` } } : {};
await step('GetExtendedAgentCard', async () => AgentCard.toJSON(await client.getAgentCard(auth)));

process.stdout.write(
  JSON.stringify({
    card: AgentCard.toJSON(card),
    transport: client.transport.protocolName,
    protocolVersion: client.transport.protocolVersion,
    steps,
    sent,
  }) + '\n',
  // A timed-out fetch may still hold the event loop open.
  () => process.exit(0)
);
