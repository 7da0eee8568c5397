import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/semaphore.js
var Semaphore = class {
  size;
  active = 0;
  waiting = [];
  waitingAhead = [];
  constructor(size) {
    this.size = size;
  }
  get free() {
    return this.size - this.active;
  }
  /** Runs `task` holding a place; a free place is taken at once, without a turn of the event loop. */
  run(task, options = {}) {
    if (this.active < this.size) {
      this.active++;
      return this.holding(task);
    }
    const queue = options.ahead ? this.waitingAhead : this.waiting;
    return new Promise((resolve) => queue.push(resolve)).then(() => this.holding(task));
  }
  async holding(task) {
    try {
      return await task();
    } finally {
      const next = this.waitingAhead.shift() ?? this.waiting.shift();
      if (next)
        next();
      else
        this.active--;
    }
  }
};

export {
  Semaphore
};
