function c = bench_prefix(x)
% bench: the running sum of a row, as cumsum(x) (a scan: each element needs the one before).
c = zeros(size(x));
c(1) = x(1);
for i = 2:numel(x)
  c(i) = c(i-1) + x(i);
end
end
