// The overlay's write gate (docs/notes/0015, "The gate").
/**
 * A readers-writer gate, first come first served: writes through the overlay share it; a restore, a discard
 * or a commit waits for the writes under way and holds back new ones until it is done.
 */
export class Gate {
  #shared = 0;
  #exclusive = false;
  readonly #queue: { readonly exclusive: boolean; readonly enter: () => void }[] = [];

  shared<T>(work: () => Promise<T>): Promise<T> {
    return this.#run(false, work);
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.#run(true, work);
  }

  async #run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    if (this.#queue.length > 0 || !this.#admits(exclusive)) {
      await new Promise<void>((enter) => this.#queue.push({ exclusive, enter }));
    } else {
      this.#take(exclusive);
    }
    try {
      return await work();
    } finally {
      if (exclusive) this.#exclusive = false;
      else this.#shared--;
      this.#drain();
    }
  }

  #admits(exclusive: boolean): boolean {
    return exclusive ? !this.#exclusive && this.#shared === 0 : !this.#exclusive;
  }

  #take(exclusive: boolean): void {
    if (exclusive) this.#exclusive = true;
    else this.#shared++;
  }

  #drain(): void {
    while (this.#queue.length > 0 && this.#admits((this.#queue[0] as { exclusive: boolean }).exclusive)) {
      const next = this.#queue.shift() as { exclusive: boolean; enter: () => void };
      this.#take(next.exclusive);
      next.enter();
    }
  }
}
