/**
 * The option helpers refuse, when a net's module defines them, bounds or a default no environment value
 * could honour: before, `integerOption(5, { min: 10, max: 1 })` was accepted and every value of its
 * variable was then refused, whatever the operator set.
 */
import { describe, expect, it } from 'vitest'
import { durationOption, integerOption, OptionDefinitionError, stringOption } from '../../src/index.js'

function definitionError(define: () => unknown): OptionDefinitionError {
  try {
    define()
  } catch (error) {
    if (error instanceof OptionDefinitionError) return error
    throw error
  }
  throw new Error('the helper accepted an option no value could satisfy')
}

describe('the option helpers', () => {
  it('refuse an integer option whose min is above its max, naming both', () => {
    const error = definitionError(() => integerOption(5, { min: 10, max: 1 }))
    expect(error.code).toBe('NET_OPTION_INVALID')
    expect(error.message).toBe('integerOption: expected min ≤ max; got min 10, max 1')
  })

  it('refuse an integer option whose default lies outside its bounds, or is no whole number', () => {
    expect(definitionError(() => integerOption(0, { min: 1, max: 9 })).message).toBe(
      'integerOption: expected the default within 1 to 9; got 0',
    )
    expect(definitionError(() => integerOption(1.5, { min: 1, max: 9 })).message).toBe(
      'integerOption: expected the default to be a whole number; got 1.5',
    )
  })

  it('refuse an integer option without bounds, or with a default written as a string, saying what to write', () => {
    // Before: "Cannot read properties of undefined (reading 'min')" from a JavaScript configuration module.
    const loose = integerOption as unknown as (value: unknown, bounds?: unknown) => unknown
    expect(definitionError(() => loose(7)).message).toBe(
      'integerOption: expected its bounds as the second argument, e.g. integerOption(7, { min: 1, max: 365 }); got undefined',
    )
    expect(definitionError(() => loose('7')).message).toContain('e.g. integerOption(7, { min: 1, max: 365 })')
    expect(definitionError(() => loose('7', { min: 1, max: 9 })).message).toBe(
      'integerOption: expected the default to be a whole number; got the string "7"',
    )
  })

  it('refuse a duration option whose default has no unit or lies outside its bounds, in units', () => {
    expect(definitionError(() => durationOption('90')).message).toBe(
      'durationOption: expected a default with a unit (e.g. 90s); got 90',
    )
    expect(definitionError(() => durationOption('30s', { min: 60_000 })).message).toBe(
      'durationOption: expected the default within 1m to 400d; got 30s',
    )
  })

  it('refuse a duration option whose default is a number, asking for a string with a unit', () => {
    // Before: "text.trim is not a function" from a JavaScript configuration module.
    const loose = durationOption as unknown as (value: unknown) => unknown
    expect(definitionError(() => loose(30)).message).toBe(
      "durationOption: expected a default with a unit, as a string (e.g. '90s'); got the number 30",
    )
  })

  it('refuse a string option given its pattern where the sentence of what it expects goes', () => {
    // Before: accepted; the pattern was taken as the sentence and every value up to 200 characters passed.
    const loose = stringOption as unknown as (...args: unknown[]) => unknown
    expect(definitionError(() => loose('fast', /^(fast|slow)$/)).message).toBe(
      "stringOption: expected (default, what it expects in words, pattern), e.g. stringOption('fast', 'fast or slow', /^(fast|slow)$/); got the pattern /^(fast|slow)$/ as what it expects",
    )
    expect(definitionError(() => loose('fast', 'fast or slow', '^(fast|slow)$')).message).toContain(
      'got a pattern of ^(fast|slow)$',
    )
  })

  it('still take the shipped nets’ options and read their variables', () => {
    expect(integerOption(30, { min: 1, max: 100_000 }).schema.parse('7')).toBe(7)
    expect(durationOption('3m', { min: 0 }).schema.parse(undefined)).toBe(180_000)
  })
})
