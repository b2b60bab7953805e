//! orbit-web (TypeScript, a React shop front): the cart gets a remove action; a failing test
//! shows a stale response overwriting the cart after a quick store switch, fixed in the hook's
//! effect; the gateway's docs decide how 429 is retried; a Stripe secret key is found in the
//! browser bundle's env and a build check keeps it out; the cart reducer moves out of React.

use super::script::{Project, Step, bash, edit, fails, read, session, turn, write};

pub(crate) fn project() -> Project {
    Project {
        name: "orbit-web",
        files: vec![
            (
                "src/hooks/useCart.ts",
                include_str!("../../assets/demo/orbit-web/src/hooks/useCart.ts"),
            ),
            (
                "src/api/client.ts",
                include_str!("../../assets/demo/orbit-web/src/api/client.ts"),
            ),
            (
                "package.json",
                include_str!("../../assets/demo/orbit-web/package.json"),
            ),
            (
                ".env.production",
                include_str!("../../assets/demo/orbit-web/.env.production"),
            ),
        ],
        sessions: vec![
            session(
                11,
                10,
                20,
                vec![turn(
                    "The cart page needs a remove button. useCart should expose remove(sku) next to add.",
                    vec![
                        read("src/hooks/useCart.ts"),
                        edit(
                            "src/hooks/useCart.ts",
                            "  const add = useCallback((line: CartLine) => dispatch({ type: \"add\", line }), []);",
                            "  const add = useCallback((line: CartLine) => dispatch({ type: \"add\", line }), []);\n  const remove = useCallback((sku: string) => dispatch({ type: \"remove\", sku }), []);",
                        ),
                        edit(
                            "src/hooks/useCart.ts",
                            "  return { ...state, add, total };",
                            "  return { ...state, add, remove, total };",
                        ),
                        bash(
                            "npx vitest run src/hooks",
                            "Run the hook tests",
                            " ✓ src/hooks/useCart.test.ts (5 tests) 41ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)",
                        ),
                    ],
                    "Added `remove(sku)` to useCart() in src/hooks/useCart.ts; it dispatches the reducer's existing `remove` action, so the cart page can call it next to `add`. The 5 hook tests pass.",
                )],
            ),
            session(
                10,
                13,
                0,
                vec![
                    turn(
                        "Users see the wrong cart after switching stores quickly. Write a failing test first.",
                        vec![
                            write(
                                "src/hooks/useCart.race.test.ts",
                                "import { act, renderHook } from \"@testing-library/react\";\nimport { expect, test, vi } from \"vitest\";\nimport * as client from \"../api/client\";\nimport { useCart } from \"./useCart\";\n\ntest(\"keeps the cart of the latest cartId\", async () => {\n  const slow = new Promise((r) => setTimeout(() => r([{ sku: \"A-1\", quantity: 1, unitPrice: 500 }]), 50));\n  const fast = Promise.resolve([{ sku: \"B-7\", quantity: 2, unitPrice: 300 }]);\n  vi.spyOn(client, \"request\").mockReturnValueOnce(slow).mockReturnValueOnce(fast);\n  const { result, rerender } = renderHook(({ id }) => useCart(id), { initialProps: { id: \"a\" } });\n  rerender({ id: \"b\" });\n  await act(() => new Promise((r) => setTimeout(r, 80)));\n  expect(result.current.lines).toEqual([{ sku: \"B-7\", quantity: 2, unitPrice: 300 }]);\n});\n",
                            ),
                            fails(
                                "npx vitest run src/hooks/useCart.race.test.ts",
                                "Run the new race test",
                                " FAIL  src/hooks/useCart.race.test.ts > keeps the cart of the latest cartId\nAssertionError: expected [ { sku: 'A-1', quantity: 1, unitPrice: 500 } ] to deeply equal [ { sku: 'B-7', quantity: 2, unitPrice: 300 } ]\n\n Test Files  1 failed (1)\n      Tests  1 failed (1)",
                            ),
                        ],
                        "The race test fails as expected: when cartId changes while the first request is in flight, the slow response for the old cart arrives last and its `loaded` action overwrites the new cart. The effect in useCart() never ignores a stale response.\n\nNext: drop responses for a previous cartId in the effect's cleanup.",
                    ),
                    turn(
                        "Fix it.",
                        vec![
                            edit(
                                "src/hooks/useCart.ts",
                                "  useEffect(() => {\n    withRetry(() => request<CartLine[]>(`/carts/${cartId}`), { attempts: 3 })\n      .then((lines) => dispatch({ type: \"loaded\", lines }))\n      .catch((e: Error) => dispatch({ type: \"status\", status: \"error\", error: e.message }));\n  }, [cartId]);",
                                "  useEffect(() => {\n    // A response for a cart we already left must not overwrite the current one.\n    let stale = false;\n    withRetry(() => request<CartLine[]>(`/carts/${cartId}`), { attempts: 3 })\n      .then((lines) => stale || dispatch({ type: \"loaded\", lines }))\n      .catch((e: Error) => stale || dispatch({ type: \"status\", status: \"error\", error: e.message }));\n    return () => {\n      stale = true;\n    };\n  }, [cartId]);",
                            ),
                            bash(
                                "npx vitest run src/hooks/useCart.race.test.ts src/hooks/useCart.test.ts",
                                "Run the race test and the other cart tests",
                                " ✓ src/hooks/useCart.test.ts (5 tests) 39ms\n ✓ src/hooks/useCart.race.test.ts (1 test) 92ms\n\n Test Files  2 passed (2)\n      Tests  6 passed (6)",
                            ),
                        ],
                        "Fixed: useCart() in src/hooks/useCart.ts now drops a response whose cartId is no longer current (the effect's cleanup sets `stale`), so a quick store switch shows the latest cart. The race test passes, with the other 5.",
                    ),
                ],
            ),
            session(
                8,
                9,
                45,
                vec![
                    turn(
                        "Should withRetry also retry 429 Too Many Requests? Check what our API gateway's docs say before deciding.",
                        vec![
                            read("src/api/client.ts"),
                            Step::WebFetch {
                                url: "https://docs.orbit.shop/gateway/rate-limits",
                                prompt: "How must clients handle 429 responses?",
                                result: "429 responses carry a Retry-After header in seconds. Clients must wait at least that long before retrying; a client that retries sooner has its block extended by 60 seconds.",
                            },
                        ],
                        "Decision: withRetry() will retry 429 as well, but wait for the gateway's Retry-After instead of its own backoff; other 4xx still fail at once. Reason: per docs.orbit.shop, the gateway extends the block by 60 s when a client retries sooner than Retry-After, so our 200 ms backoff would make a rate limit worse.",
                    ),
                    turn(
                        "Implement that.",
                        vec![
                            edit(
                                "src/api/client.ts",
                                "export class ApiError extends Error {\n  constructor(public status: number, message: string) {\n    super(message);\n  }\n}",
                                "export class ApiError extends Error {\n  constructor(public status: number, message: string, public retryAfterMs?: number) {\n    super(message);\n  }\n}",
                            ),
                            edit(
                                "src/api/client.ts",
                                "    throw new ApiError(res.status, `${init?.method ?? \"GET\"} ${path}: ${res.status}`);",
                                "    const retryAfter = Number(res.headers.get(\"retry-after\"));\n    throw new ApiError(\n      res.status,\n      `${init?.method ?? \"GET\"} ${path}: ${res.status}`,\n      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,\n    );",
                            ),
                            edit(
                                "src/api/client.ts",
                                "      if (e instanceof ApiError && e.status < 500) throw e;\n      await new Promise((r) => setTimeout(r, baseMs * 2 ** i));",
                                "      if (e instanceof ApiError && e.status < 500 && e.status !== 429) throw e;\n      // The gateway extends a rate limit when we come back before Retry-After.\n      const wait = e instanceof ApiError && e.retryAfterMs ? e.retryAfterMs : baseMs * 2 ** i;\n      await new Promise((r) => setTimeout(r, wait));",
                            ),
                            bash(
                                "npx vitest run src/api",
                                "Run the client tests",
                                " ✓ src/api/client.test.ts (7 tests) 58ms\n\n Test Files  1 passed (1)\n      Tests  7 passed (7)",
                            ),
                        ],
                        "Changed withRetry() in src/api/client.ts: a 429 is now retried after the Retry-After the gateway sends (read by request() into `ApiError.retryAfterMs`), other 4xx still fail at once, 5xx keep the exponential backoff. The 7 client tests pass.",
                    ),
                ],
            ),
            session(
                6,
                14,
                0,
                vec![
                    turn(
                        "Vite warns about the size of the env at build time. Check what we put into VITE_ variables for production.",
                        vec![
                            bash(
                                "cat .env.production",
                                "Show the production env",
                                "VITE_API_URL=https://api.orbit.shop\nVITE_STRIPE_KEY=sk_live_DEMOxDEMOxDEMOxDEMOx0000\nVITE_SENTRY_DSN=https://4f2c9a@o1204.ingest.sentry.io/88",
                            ),
                            bash(
                                "grep -o 'sk_live_[A-Za-z0-9]*' dist/assets/index-*.js | head -1",
                                "Is the key in the built bundle?",
                                "dist/assets/index-8c1f2e.js:sk_live_DEMOxDEMOxDEMOxDEMOx0000",
                            ),
                        ],
                        "Security problem: .env.production puts the Stripe secret key in VITE_STRIPE_KEY, and Vite inlines every VITE_ variable into the browser bundle; the built dist/assets/index-8c1f2e.js contains it, so anyone can read the key. The client only needs the publishable key (pk_live_...).",
                    ),
                    turn(
                        "Replace it with the publishable key and add a check so that can't happen again.",
                        vec![
                            Step::Todos(&[
                                ("Use the publishable key in .env.production", "in_progress"),
                                (
                                    "Fail the build when a VITE_ variable holds a secret key",
                                    "pending",
                                ),
                                (
                                    "Roll the leaked secret key in the Stripe dashboard",
                                    "pending",
                                ),
                            ]),
                            edit(
                                ".env.production",
                                "VITE_STRIPE_KEY=sk_live_DEMOxDEMOxDEMOxDEMOx0000",
                                "VITE_STRIPE_KEY=pk_live_51OrbitPublishableKey",
                            ),
                            write(
                                "scripts/check-env.ts",
                                "// Fails the build when a VITE_ variable holds a secret key, because Vite ships every\n// VITE_ value to the browser.\nimport { readFileSync } from \"node:fs\";\n\nconst LOOKS_PRIVATE = /^(sk|rk)_(live|test)_|^-----BEGIN/;\nconst bad = readFileSync(process.argv[2] ?? \".env.production\", \"utf8\")\n  .split(\"\\n\")\n  .filter((l) => l.startsWith(\"VITE_\") && LOOKS_PRIVATE.test(l.split(\"=\")[1] ?? \"\"));\nif (bad.length > 0) {\n  console.error(`secret in a VITE_ variable: ${bad.map((l) => l.split(\"=\")[0]).join(\", \")}`);\n  process.exit(1);\n}\n",
                            ),
                            edit(
                                "package.json",
                                "    \"build\": \"tsc --noEmit && vite build\",",
                                "    \"build\": \"tsx scripts/check-env.ts && tsc --noEmit && vite build\",",
                            ),
                            bash(
                                "npm run build",
                                "Build with the env check",
                                "> orbit-web@ build\n> tsx scripts/check-env.ts && tsc --noEmit && vite build\n\nvite v5.4.8 building for production...\n✓ 212 modules transformed.\ndist/assets/index-3b9d41.js   187.42 kB │ gzip: 61.08 kB\n✓ built in 2.31s",
                            ),
                            Step::Todos(&[
                                ("Use the publishable key in .env.production", "completed"),
                                (
                                    "Fail the build when a VITE_ variable holds a secret key",
                                    "completed",
                                ),
                                (
                                    "Roll the leaked secret key in the Stripe dashboard",
                                    "pending",
                                ),
                            ]),
                        ],
                        "Fixed: .env.production now holds the publishable key, and the new scripts/check-env.ts fails `npm run build` when a VITE_ variable holds a secret (sk_/rk_ keys, PEM blocks). The rebuilt bundle has no secret key.\n\nTODO: roll the leaked secret key in the Stripe dashboard; only the account owner can.",
                    ),
                ],
            ),
            session(
                3,
                11,
                30,
                vec![turn(
                    "useCart.ts mixes the cart logic with React. Move the reducer out so it can be tested without rendering; find every caller first.",
                    vec![
                        Step::Agent {
                            description: "Find the callers of mergeLines",
                            prompt: "Find every import of mergeLines and of anything else exported by src/hooks/useCart.ts, with file and line.",
                            report: "mergeLines is used in two places: the reducer in src/hooks/useCart.ts (add and loaded) and src/pages/Checkout.tsx line 41, which merges a saved cart before showing it. CartLine is imported by src/pages/Checkout.tsx and src/components/CartRow.tsx. Nothing else imports from src/hooks/useCart.ts.",
                        },
                        write(
                            "src/cart/reducer.ts",
                            "// The cart's state and how actions change it: plain functions, no React.\n\nexport interface CartLine {\n  sku: string;\n  quantity: number;\n  unitPrice: number; // cents\n}\n\nexport interface CartState {\n  lines: CartLine[];\n  status: \"idle\" | \"saving\" | \"error\";\n  error?: string;\n}\n\nexport type Action =\n  | { type: \"add\"; line: CartLine }\n  | { type: \"remove\"; sku: string }\n  | { type: \"loaded\"; lines: CartLine[] }\n  | { type: \"status\"; status: CartState[\"status\"]; error?: string };\n\n/** Lines with the same SKU are merged; quantities add up. */\nexport function mergeLines(lines: CartLine[]): CartLine[] {\n  const bySku = new Map<string, CartLine>();\n  for (const line of lines) {\n    const seen = bySku.get(line.sku);\n    bySku.set(line.sku, seen ? { ...seen, quantity: seen.quantity + line.quantity } : line);\n  }\n  return [...bySku.values()];\n}\n\nexport function reducer(state: CartState, action: Action): CartState {\n  switch (action.type) {\n    case \"add\":\n      return { ...state, lines: mergeLines([...state.lines, action.line]) };\n    case \"remove\":\n      return { ...state, lines: state.lines.filter((l) => l.sku !== action.sku) };\n    case \"loaded\":\n      return { ...state, lines: mergeLines(action.lines), status: \"idle\" };\n    case \"status\":\n      return { ...state, status: action.status, error: action.error };\n  }\n}\n",
                        ),
                        edit(
                            "src/hooks/useCart.ts",
                            "import { request, withRetry } from \"../api/client\";\n\nexport interface CartLine {\n  sku: string;\n  quantity: number;\n  unitPrice: number; // cents\n}\n\nexport interface CartState {\n  lines: CartLine[];\n  status: \"idle\" | \"saving\" | \"error\";\n  error?: string;\n}\n\ntype Action =\n  | { type: \"add\"; line: CartLine }\n  | { type: \"remove\"; sku: string }\n  | { type: \"loaded\"; lines: CartLine[] }\n  | { type: \"status\"; status: CartState[\"status\"]; error?: string };\n\n/** Lines with the same SKU are merged; quantities add up. */\nexport function mergeLines(lines: CartLine[]): CartLine[] {\n  const bySku = new Map<string, CartLine>();\n  for (const line of lines) {\n    const seen = bySku.get(line.sku);\n    bySku.set(line.sku, seen ? { ...seen, quantity: seen.quantity + line.quantity } : line);\n  }\n  return [...bySku.values()];\n}\n\nfunction reducer(state: CartState, action: Action): CartState {\n  switch (action.type) {\n    case \"add\":\n      return { ...state, lines: mergeLines([...state.lines, action.line]) };\n    case \"remove\":\n      return { ...state, lines: state.lines.filter((l) => l.sku !== action.sku) };\n    case \"loaded\":\n      return { ...state, lines: mergeLines(action.lines), status: \"idle\" };\n    case \"status\":\n      return { ...state, status: action.status, error: action.error };\n  }\n}\n",
                            "import { request, withRetry } from \"../api/client\";\nimport { type CartLine, reducer } from \"../cart/reducer\";\n\n// Callers that imported these from here keep working.\nexport { type CartLine, type CartState, mergeLines } from \"../cart/reducer\";\n",
                        ),
                        bash(
                            "npx tsc --noEmit && npx vitest run",
                            "Type-check and run every test",
                            " ✓ src/api/client.test.ts (7 tests) 55ms\n ✓ src/hooks/useCart.test.ts (5 tests) 40ms\n ✓ src/hooks/useCart.race.test.ts (1 test) 90ms\n\n Test Files  3 passed (3)\n      Tests  13 passed (13)",
                        ),
                    ],
                    "Refactored: mergeLines() and the cart reducer moved from src/hooks/useCart.ts into the new src/cart/reducer.ts, which has no React in it; useCart() only wires the reducer to the API, and re-exports CartLine, CartState and mergeLines so Checkout.tsx and CartRow.tsx are unchanged. tsc and all 13 tests pass.\n\nNext: unit tests for reducer() without renderHook.",
                )],
            ),
        ],
    }
}
