/**
 * Compile-time proofs that the answer fields the client reads exist in Immich's own DTOs
 * (`@immich/sdk`, types only) with a type its schemas accept: each module that parses an answer
 * proves its schemas beside them, so that after an SDK upgrade `deno check` fails where Immich
 * changed what stacksync relies on.
 *
 * @module
 */

/** True when every value of type `Dto` passes a schema whose input type is `Input`. */
export type Fits<Dto, Input> = [Dto] extends [Input] ? true : false;

/** Compiles only when every check is `true`. */
export type Proven<Checks extends readonly true[]> = Checks;
