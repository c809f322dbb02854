import { EngramError } from '../errors';

/**
 * What validation (and abstractive summaries) need from a language model: one chat
 * completion with structured output. The runner implements it over any OpenAI-compatible
 * HTTP endpoint (headless/openai-chat.ts); tests use a local fake server.
 */
export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** The JSON schema the answer must follow (sent as response_format when the server supports it). */
  schema: { name: string; schema: Record<string, unknown> };
}

export interface ChatModel {
  /** The model's name, recorded with every run. */
  readonly model: string;
  /** The assistant's answer text. Throws ChatError. */
  complete(request: ChatRequest): Promise<string>;
}

export type ChatFailure = 'timeout' | 'http' | 'refused' | 'network' | 'empty';

export class ChatError extends EngramError {
  override name = 'ChatError';
  constructor(
    readonly kind: ChatFailure,
    message: string,
  ) {
    super(message);
  }
}
