import { useCallback, useEffect, useReducer } from "react";
import { request, withRetry } from "../api/client";

export interface CartLine {
  sku: string;
  quantity: number;
  unitPrice: number; // cents
}

export interface CartState {
  lines: CartLine[];
  status: "idle" | "saving" | "error";
  error?: string;
}

type Action =
  | { type: "add"; line: CartLine }
  | { type: "remove"; sku: string }
  | { type: "loaded"; lines: CartLine[] }
  | { type: "status"; status: CartState["status"]; error?: string };

/** Lines with the same SKU are merged; quantities add up. */
export function mergeLines(lines: CartLine[]): CartLine[] {
  const bySku = new Map<string, CartLine>();
  for (const line of lines) {
    const seen = bySku.get(line.sku);
    bySku.set(line.sku, seen ? { ...seen, quantity: seen.quantity + line.quantity } : line);
  }
  return [...bySku.values()];
}

function reducer(state: CartState, action: Action): CartState {
  switch (action.type) {
    case "add":
      return { ...state, lines: mergeLines([...state.lines, action.line]) };
    case "remove":
      return { ...state, lines: state.lines.filter((l) => l.sku !== action.sku) };
    case "loaded":
      return { ...state, lines: mergeLines(action.lines), status: "idle" };
    case "status":
      return { ...state, status: action.status, error: action.error };
  }
}

export function useCart(cartId: string) {
  const [state, dispatch] = useReducer(reducer, { lines: [], status: "idle" });

  useEffect(() => {
    withRetry(() => request<CartLine[]>(`/carts/${cartId}`), { attempts: 3 })
      .then((lines) => dispatch({ type: "loaded", lines }))
      .catch((e: Error) => dispatch({ type: "status", status: "error", error: e.message }));
  }, [cartId]);

  const add = useCallback((line: CartLine) => dispatch({ type: "add", line }), []);
  const total = state.lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0);
  return { ...state, add, total };
}
