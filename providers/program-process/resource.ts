/**
 * One factory for the resource classes: a contract (shared/) becomes a dynamic resource class
 * (what `pulumi.dynamic.Resource` makes: type `pulumi-nodejs:dynamic/stackwright:<type>`, the
 * serialized provider in `__provider`, written by provider.ts instead of the SDK's serializer) whose constructor arguments and
 * output properties are derived from the contract's zod schemas, so a field is declared once, in
 * the contract.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { typeToken } from "../../src/api";
import { hasMarker, outputKeys, PROVIDER_KEY, type Contract, type InternalInput } from "../shared/contract";
import { markerSeed } from "./identity";
import { providerOf } from "./provider";

type CallerInputs<C extends Contract> = Omit<z.input<C["inputs"]>, InternalInput>;
type Recorded<C extends Contract> = Omit<z.output<C["inputs"]>, InternalInput> & z.output<C["outputs"]>;

/** The arguments of a resource class: each input of the contract, as a Pulumi input. */
export type ArgsOf<C extends Contract> = { [K in keyof CallerInputs<C>]: pulumi.Input<CallerInputs<C>[K]> };

/** The output properties of a resource: every input and output of the contract. */
export type OutputsOf<C extends Contract> = {
  readonly [K in keyof Recorded<C>]-?: pulumi.Output<Recorded<C>[K]>;
};

/** A resource class made by {@link resourceClass}. */
export interface ResourceClass<C extends Contract> {
  new (
    name: string,
    args: ArgsOf<C>,
    opts?: pulumi.CustomResourceOptions,
  ): pulumi.CustomResource & OutputsOf<C>;
}

/**
 * The resource class of a contract, of type `pulumi-nodejs:dynamic/stackwright:<type>`. Its
 * outputs are declared to the engine by name (the SDK turns each property given as `undefined`
 * into an Output filled from the provider's outputs); a type with a marker gets its seed here.
 */
export function resourceClass<C extends Contract>(contract: C): ResourceClass<C> {
  const outputs = Object.fromEntries(outputKeys(contract).map((key) => [key, undefined]));
  const marked = hasMarker(contract);
  class StackwrightResource extends pulumi.CustomResource {
    constructor(name: string, args: ArgsOf<C>, opts?: pulumi.CustomResourceOptions) {
      const seed = marked ? { marker_seed: markerSeed(contract.type, name) } : {};
      super(
        typeToken(contract.type),
        name,
        { ...outputs, ...args, ...seed, [PROVIDER_KEY]: providerOf(contract.kind) },
        opts,
      );
    }
  }
  const plain: new (
    name: string,
    args: ArgsOf<C>,
    opts?: pulumi.CustomResourceOptions,
  ) => pulumi.CustomResource = StackwrightResource;
  // The SDK sets the output properties at run time, by name; TypeScript cannot see that.
  return plain as ResourceClass<C>;
}
