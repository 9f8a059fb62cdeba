function s = bench_rowsum(A)
% bench: the sum of each row of a matrix, as sum(A, 2) (a reduction per row, over the columns).
s = zeros(size(A, 1), 1);
for j = 1:size(A, 2)
  for i = 1:size(A, 1)
    s(i) = s(i) + A(i, j);
  end
end
end
