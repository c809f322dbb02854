import { EmbedderError } from '../../src/core/errors';
import { loadTransformers, TRANSFORMERS_INSTALL } from '../../headless/embedders';

/** transformers.js is not a dependency of engram: it is loaded only when an embedder needs it. */
describe('loading transformers.js', () => {
  const notFound = (name: string) => Object.assign(new Error(`Cannot find package '${name}' imported from /usr/lib/node_modules/engram/dist/engram.js`), { code: 'ERR_MODULE_NOT_FOUND' });

  test('@huggingface/transformers first', async () => {
    const tried: string[] = [];
    const lib = await loadTransformers(async (name) => {
      tried.push(name);
      return { from: name };
    });
    expect(lib).toEqual({ from: '@huggingface/transformers' });
    expect(tried).toEqual(['@huggingface/transformers']);
  });

  test('@xenova/transformers when the newer one is not installed', async () => {
    const lib = await loadTransformers(async (name) => {
      if (name === '@huggingface/transformers') throw notFound(name);
      return { from: name };
    });
    expect(lib).toEqual({ from: '@xenova/transformers' });
  });

  test('neither installed: one error that says how to install it', async () => {
    const error = await loadTransformers(async (name) => {
      throw notFound(name);
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderError);
    expect((error as Error).message).toBe(TRANSFORMERS_INSTALL);
    expect(TRANSFORMERS_INSTALL).toContain('ONNXRUNTIME_NODE_INSTALL=skip npm install -g @huggingface/transformers');
  });

  test('a package that is there but broken (a dependency of it missing) is not taken for absent', async () => {
    const error = await loadTransformers(async () => {
      throw notFound('onnxruntime-node');
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe("Cannot find package 'onnxruntime-node' imported from /usr/lib/node_modules/engram/dist/engram.js");
  });
});
