// The @a2a-js/sdk 1.3.0 Express server for tests/test_js_interop.py.
//
//   node server.mjs '<json list of seeded task ids>'
//
// Listens on 127.0.0.1 at a free port and prints one JSON line {"port": N} when ready;
// exits when its stdin closes, so it never outlives the test process.
//
// Two agents, each with HTTP+JSON under <prefix>/rest and JSON-RPC at <prefix>/jsonrpc:
// - prefix "": streaming, push notifications and an extended card; its executor
//   completes a task at once unless the message text is "hold" (left working);
// - prefix "/bare": no push notifications, no streaming, an extended card claimed but
//   not configured (the capability errors).
// Tasks with the seeded ids exist, working, in tenants "" and "acme".
import express from 'express';
import { AgentCard, Message, Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  ServerCallContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import {
  UserBuilder,
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
} from '@a2a-js/sdk/server/express';

const seededIds = JSON.parse(process.argv[2] ?? '[]');
const TENANTS = ['', 'acme'];

function textOf(message) {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');
}

class Executor {
  async execute(requestContext, eventBus) {
    const { taskId, contextId, userMessage } = requestContext;
    const task =
      requestContext.task ??
      Task.fromJSON({
        id: taskId,
        contextId,
        status: { state: 'TASK_STATE_SUBMITTED' },
        history: [Message.toJSON(userMessage)],
      });
    eventBus.publish(AgentEvent.task(task));
    const hold = textOf(userMessage) === 'hold';
    if (!hold) {
      eventBus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'echo',
            name: '',
            description: '',
            parts: userMessage.parts,
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        })
      );
    }
    eventBus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: hold ? 2 /* WORKING */ : 3 /* COMPLETED */,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      })
    );
  }

  async cancelTask(taskId, eventBus) {
    eventBus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: 5 /* CANCELED */, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      })
    );
  }
}

function card(name, capabilities) {
  return AgentCard.fromJSON({
    name,
    description: '@a2a-js/sdk 1.3.0 Express server',
    version: '1.0.0',
    capabilities,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    // URLs are filled in once the port is known.
    supportedInterfaces: [
      { url: '', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: '', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  });
}

const fullCard = card('js-sdk-server', {
  streaming: true,
  pushNotifications: true,
  extendedAgentCard: true,
});
const extendedCard = { ...fullCard, name: 'js-sdk-server-extended' };
// Claims an extended card but has none: that is ExtendedAgentCardNotConfiguredError
// (without the claim the SDK answers UnsupportedOperationError first).
const bareCard = card('js-sdk-bare', {
  streaming: false,
  pushNotifications: false,
  extendedAgentCard: true,
});

const store = new InMemoryTaskStore();
for (const tenant of TENANTS) {
  const context = new ServerCallContext({ tenant, user: new UnauthenticatedUser() });
  for (const id of seededIds) {
    await store.save(
      Task.fromJSON({ id, contextId: 'seeded', status: { state: 'TASK_STATE_WORKING' } }),
      context
    );
  }
}

const full = new DefaultRequestHandler(
  fullCard,
  store,
  new Executor(),
  undefined,
  new InMemoryPushNotificationStore(),
  undefined,
  // A provider function: a plain card is only given to authenticated users.
  async () => extendedCard
);
const bare = new DefaultRequestHandler(bareCard, new InMemoryTaskStore(), new Executor());

const app = express();
for (const [prefix, handler] of [
  ['', full],
  ['/bare', bare],
]) {
  const options = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication };
  app.use(`${prefix}/rest`, restHandler(options));
  app.use(`${prefix}/jsonrpc`, jsonRpcHandler(options));
}
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: full }));

const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  for (const [prefix, agentCard] of [
    ['', fullCard],
    ['', extendedCard],
    ['/bare', bareCard],
  ]) {
    agentCard.supportedInterfaces[0].url = `http://127.0.0.1:${port}${prefix}/rest`;
    agentCard.supportedInterfaces[1].url = `http://127.0.0.1:${port}${prefix}/jsonrpc`;
  }
  process.stdout.write(JSON.stringify({ port }) + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
