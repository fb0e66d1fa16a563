/**
 * A first-in, first-out queue with O(1) push and shift. `Array.prototype.shift` moves every
 * element, which makes draining a 10,000-node fan-out quadratic.
 */
export class ReadyQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(...items: T[]): void {
    for (const item of items) this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // Compact once the consumed prefix is most of the array.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
