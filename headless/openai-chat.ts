import { EngramError } from '../src/core/errors';
import type { ChatSettings } from '../src/core/settings';
import { ChatError, type ChatModel, type ChatRequest } from '../src/core/validation/chat';

/**
 * A chat model behind any OpenAI-compatible endpoint (`POST {url}/chat/completions`): a local
 * server (Ollama at http://127.0.0.1:11434/v1, llama.cpp's server at http://127.0.0.1:8080/v1)
 * or a hosted one. Structured output through `response_format` (json_schema by default; some
 * servers only know json_object, or nothing). The API key is read from the environment
 * variable the settings name, never from the settings file. Temperature 0, so a verdict is as
 * reproducible as the server allows.
 */
export function createChatModel(settings: ChatSettings, env: Record<string, string | undefined>): ChatModel | null {
  if (!settings.url) return null;
  if (!settings.model) throw new EngramError('chat.model is not set in .engram/config.json (the model the endpoint should use)');
  const key = settings.apiKeyEnv ? env[settings.apiKeyEnv] : undefined;
  if (settings.apiKeyEnv && !key) throw new EngramError(`chat.apiKeyEnv names ${settings.apiKeyEnv}, which is not set in the environment`);
  const endpoint = `${settings.url.replace(/\/+$/, '')}/chat/completions`;
  return {
    model: settings.model,
    async complete(request: ChatRequest): Promise<string> {
      const body: Record<string, unknown> = { model: settings.model, messages: request.messages, temperature: 0, stream: false };
      if (settings.responseFormat === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: request.schema.name, strict: true, schema: request.schema.schema } };
      else if (settings.responseFormat === 'json_object') body.response_format = { type: 'json_object' };
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify(body),
          signal: controller.signal,
        });
        text = await response.text();
      } catch (error) {
        if (controller.signal.aborted) throw new ChatError('timeout', `${endpoint}: no answer within ${settings.timeoutMs} ms`);
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        throw new ChatError('network', `${endpoint}: ${cause ?? (error instanceof Error ? error.message : String(error))}`);
      } finally {
        clearTimeout(timer);
      }
      if (!response.ok) throw new ChatError('http', `${endpoint}: HTTP ${response.status} ${text.slice(0, 200).replace(/\s+/g, ' ').trim()}`);
      let parsed: { choices?: Array<{ message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }> };
      try {
        parsed = JSON.parse(text) as typeof parsed;
      } catch {
        throw new ChatError('http', `${endpoint}: the answer is not JSON: ${text.slice(0, 120)}`);
      }
      const choice = parsed.choices?.[0];
      if (typeof choice?.message?.refusal === 'string' && choice.message.refusal) throw new ChatError('refused', `the model refused: ${choice.message.refusal.slice(0, 200)}`);
      if (choice?.finish_reason === 'content_filter') throw new ChatError('refused', 'the answer was withheld by the server (content_filter)');
      const content = choice?.message?.content;
      if (typeof content !== 'string' || content.trim() === '') throw new ChatError('empty', `${endpoint}: no message content in the answer`);
      return content;
    },
  };
}
