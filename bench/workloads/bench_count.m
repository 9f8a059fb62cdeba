function c = bench_count(x)
% bench: how many elements of a row exceed 0.5 (a count reduction).
c = 0;
for i = 1:numel(x)
  if x(i) > 0.5
    c = c + 1;
  end
end
end
