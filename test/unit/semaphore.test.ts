import { describe, expect, it } from "vitest";
import { Semaphore } from "../../src/semaphore.js";

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("Semaphore", () => {
  it("holds at most `size` tasks at once and lets waiters in by arrival", async () => {
    const slots = new Semaphore(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(slots.free).toBe(0);

    gates[1]?.resolve();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);

    gates[0]?.resolve();
    gates[2]?.resolve();
    gates[3]?.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(slots.free).toBe(2);
  });

  it("gives the place back when a task fails", async () => {
    const slots = new Semaphore(1);
    await expect(slots.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(slots.free).toBe(1);
    expect(await slots.run(async () => "next")).toBe("next");
  });

  it("does not let a newcomer overtake a waiter when a place frees", async () => {
    const slots = new Semaphore(1);
    const first = deferred();
    const order: string[] = [];
    const a = slots.run(async () => {
      await first.promise;
      order.push("a");
    });
    const b = slots.run(async () => {
      order.push("b");
    });
    first.resolve();
    await a;
    const c = slots.run(async () => {
      order.push("c");
    });
    await Promise.all([b, c]);
    expect(order).toEqual(["a", "b", "c"]);
  });

  it("lets follow-ups and new work take turns while both wait, and urgent tasks go first", async () => {
    const slots = new Semaphore(1);
    const holder = deferred();
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(name);
    };
    const held = slots.run(() => holder.promise);
    const waiting = [
      slots.run(task("verify 1"), { lane: "follow" }),
      slots.run(task("verify 2"), { lane: "follow" }),
      slots.run(task("verify 3"), { lane: "follow" }),
      slots.run(task("buy 1")),
      slots.run(task("buy 2")),
      slots.run(task("verify 4"), { lane: "follow", urgent: true }),
    ];
    await Promise.resolve();
    expect(order).toEqual([]);
    holder.resolve();
    await Promise.all([held, ...waiting]);
    // A backlog of follow-ups does not hold new work back: one of each in turn, then what is left.
    expect(order).toEqual(["verify 4", "buy 1", "verify 1", "buy 2", "verify 2", "verify 3"]);
    expect(slots.free).toBe(1);
  });
});
