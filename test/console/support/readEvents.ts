/** One server-sent event as a reader sees it. */
export interface ServerEvent {
  type: string;
  id?: string;
  data: any;
}

/** Reads server-sent events until the server ends the response. */
export async function readEvents(response: Response): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  const text = await response.text();
  for (const block of text.split('\n\n')) {
    const event: ServerEvent = { type: 'message', data: undefined };
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event.type = line.slice(7);
      else if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('data: ')) event.data = JSON.parse(line.slice(6));
    }
    if (event.data !== undefined) events.push(event);
  }
  return events;
}
