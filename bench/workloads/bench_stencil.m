function u = bench_stencil(u)
% bench: ten steps of the 5-point Jacobi stencil on a square grid whose border stays fixed.
[m, n] = size(u);
for step = 1:10
  v = u;
  for j = 2:n-1
    for i = 2:m-1
      v(i, j) = 0.25 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1));
    end
  end
  u = v;
end
end
