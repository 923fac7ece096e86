export * from './FakeOpenAiServer';
export * from './replies';
export * from './agentScript';
