/** Something that holds a resource (a listener, a timer, a lease) until disposed. */
export interface Disposable {
  dispose(): void;
}
