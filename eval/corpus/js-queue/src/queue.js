export class JobQueue {
  constructor(limit) {
    this.limit = limit;
    this.running = 0;
    this.waiting = [];
  }

  push(job) {
    return new Promise((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      this.next();
    });
  }

  next() {
    if (this.running > this.limit || this.waiting.length === 0) return;
    const { job, resolve, reject } = this.waiting.shift();
    this.running++;
    job()
      .then(resolve)
      .catch(() => resolve(undefined))
      .finally(() => {
        this.running--;
        this.next();
      });
  }
}

export async function runAll(jobs) {
  const results = [];
  jobs.forEach(async (job) => {
    results.push(await job());
  });
  return results;
}

export function retry(fn, times) {
  for (let i = 0; i < times; i++) {
    try {
      return fn();
    } catch (err) {
      if (i === times - 1) throw err;
    }
  }
}

export function runCommand(exec, name) {
  return exec(`convert ${name} out.png`);
}

export function parseConfig(text) {
  return JSON.parse(text || '{}');
}

export function timeout(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms * 1000));
}
