-- Hand-written: the eligibility evidence kept with each application (docs/eligibility.md): the block,
-- the time and what the address held for each rule of its form version, checked at submission. Null
-- when the form had no rules.
ALTER TABLE "applications" ADD COLUMN "eligibility" jsonb;
